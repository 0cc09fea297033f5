// A PostgreSQL of the run's own for the PostgreSQL cells: `initdb` once into a temporary
// template (as the `postgres` user when the runner is root: PostgreSQL refuses to run as
// root), a copy of it per server, `postgres` on a free port of 127.0.0.1 with its socket in
// its own directory, never the machine's PostgreSQL on 5432. A fault acts on the postmaster
// and every child of it at once (backends, checkpointer, ...), each by its pid; every wait is
// bounded in time.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@sluice/test-kit';
import pg from 'pg';
import { own } from './procs.js';
import type { StoreServer } from './redis-cell.js';

/** The uid and gid to run PostgreSQL as: `postgres` when we are root, else ourselves. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (line === undefined) throw new Error('pg-server: running as root and no postgres user');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

let template: string | undefined;
const dirs = new Set<string>();
process.on('exit', () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.add(dir);
  const as = runAs();
  if (as !== undefined) spawnSync('chown', [`${as.uid}:${as.gid}`, dir]);
  return dir;
}

/** The initdb'd template (once per run): trust auth, no fsync, UTF-8, C locale. */
function templateDir(): string {
  if (template !== undefined) return template;
  const dir = path.join(tempDir('sluice-faults-pg-'), 'data');
  const r = spawnSync(
    'initdb',
    ['-D', dir, '-U', 'postgres', '--auth=trust', '-N', '-E', 'UTF8', '--locale=C'],
    { ...runAs(), encoding: 'utf8', timeout: 60_000 },
  );
  if (r.status !== 0) throw new Error(`pg-server: initdb failed: ${r.stderr ?? r.error}`);
  template = dir;
  return dir;
}

/**
 * The postmaster `pid` and its children (each backend calls setsid(), so a process group
 * does not hold them): read from /proc, by parent pid.
 */
function tree(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so after the ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid)
        children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return [pid, ...children];
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Sends `signal` to each of `pids` that is still there. */
const signal = (pids: number[], sig: NodeJS.Signals) => {
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      // exited meanwhile
    }
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A private PostgreSQL 127.0.0.1:<port> (user postgres, database postgres, trust). */
export async function ownPostgres(): Promise<StoreServer> {
  const base = tempDir('sluice-faults-pgdata-');
  const dir = path.join(base, 'data');
  const copy = spawnSync('cp', ['-a', templateDir(), dir], { timeout: 30_000 });
  if (copy.status !== 0) throw new Error('pg-server: copying the template failed');
  const port = await freePort();
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(
      'postgres',
      [
        ...['-D', dir, '-p', String(port), '-k', base],
        ...['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
        ...['-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
        ...['-c', 'shared_buffers=16MB', '-c', 'max_connections=40'],
      ],
      { ...runAs(), detached: true, stdio: 'ignore' },
    );
    own(child.pid);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
      c.on('error', () => undefined);
      try {
        await c.connect();
        await c.query('SELECT 1');
        await c.end();
        return;
      } catch {
        await c.end().catch(() => undefined);
      }
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`pg-server: postgres on ${port} did not become ready`);
      await sleep(100);
    }
  };
  /** SIGKILL of the postmaster and its children, then waits (bounded) until none is left. */
  const kill = async () => {
    const pids = tree(child.pid!);
    signal(pids, 'SIGCONT');
    signal(pids, 'SIGKILL');
    for (let i = 0; i < 200 && pids.some(alive); i++) await sleep(50);
  };
  await launch();
  return {
    port,
    get pid() {
      return child.pid!;
    },
    pause: () => signal(tree(child.pid!), 'SIGSTOP'),
    resume: () => signal(tree(child.pid!), 'SIGCONT'),
    kill,
    restart: launch,
    async stop() {
      await kill();
      rmSync(base, { recursive: true, force: true });
      dirs.delete(base);
    },
  };
}
