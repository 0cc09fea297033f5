// `pnpm bench:stores-soak`: `--workers` processes deciding random stacks on PostgresStore and SqliteStore
// (sweep on) for `--ms`; passes with 0 deadlocks, 0 SQLITE_BUSY and no other error (test-kit runs 3 s of it).
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PostgresStore } from '@sluice/postgres';
import { createPostgresDatabase } from '@sluice/test-kit';
import type { SoakReport } from '@sluice/test-kit/soak-worker';
import pg from 'pg';
import { parseCommand } from './cli/args.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench:stores-soak -- [options]',
  summary:
    'A soak of PostgresStore and SqliteStore: processes deciding random stacks at once; counts deadlocks, SQLITE_BUSY and every other error.',
  options: {
    ms: { type: 'number', default: 60_000, help: 'how long each store is soaked' },
    workers: { type: 'number', default: 8, help: 'processes' },
    keys: { type: 'number', default: 1000, help: 'keys per limit' },
    inflight: { type: 'number', default: 8, help: 'loops per process' },
    only: { type: 'string', help: 'postgres or sqlite' },
  },
});

const here = dirname(fileURLToPath(import.meta.url));
const workerPath = createRequire(import.meta.url).resolve('@sluice/test-kit/soak-worker');

function next<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string; error?: string }) => {
      if (m.type === 'error') reject(new Error(m.error));
      else if (m.type === type) {
        child.off('message', onMessage);
        resolve(m as T);
      }
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`worker exited (${code})`)));
  });
}

async function soakStore(store: 'postgres' | 'sqlite', env: Record<string, string>) {
  const children = Array.from({ length: args.workers }, () =>
    fork(workerPath, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ...env, SLUICE_SOAK_WORKER: '1', SLUICE_SOAK_STORE: store },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  try {
    const module = join(here, 'cases', 'soak-store.ts');
    await Promise.all(
      children.map((c) => {
        const ready = next(c, 'ready');
        c.send({ type: 'setup', module });
        return ready;
      }),
    );
    const started = performance.now();
    const reports = await Promise.all(
      children.map((c, i) => {
        const done = next<SoakReport>(c, 'done');
        c.send({ type: 'run', ms: args.ms, keys: args.keys, inflight: args.inflight, seed: i + 1 });
        return done;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const sum = (f: (r: SoakReport) => number) => reports.reduce((n, r) => n + f(r), 0);
    const errors: Record<string, number> = {};
    for (const r of reports) {
      for (const [k, n] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + n;
    }
    const result = {
      store,
      workers: args.workers,
      seconds: Math.round(seconds),
      stacks: sum((r) => r.decisions),
      stacksPerSecond: Math.round(sum((r) => r.decisions) / seconds),
      admitted: sum((r) => r.allowed),
      deadlocks: sum((r) => r.deadlocks),
      busy: sum((r) => r.busy),
      errors,
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    for (const c of children) c.kill('SIGKILL');
  }
}

async function main() {
  const results = [];
  if (args.only !== 'sqlite') {
    const db = await createPostgresDatabase();
    try {
      const pool = new pg.Pool(db.config);
      await new PostgresStore({ client: pool, sweepIntervalMs: 0 }).migrate();
      await pool.end();
      results.push(await soakStore('postgres', { SLUICE_PG_URL: db.url }));
    } finally {
      await db.drop();
    }
  }
  if (args.only !== 'postgres') {
    const file = join(mkdtempSync(join(tmpdir(), 'sluice-soak-')), 'limits.db');
    results.push(await soakStore('sqlite', { SLUICE_SQLITE_FILE: file }));
  }
  const failed = results.some(
    (r) => r.deadlocks > 0 || r.busy > 0 || Object.keys(r.errors).length > 0,
  );
  console.log(failed ? 'soak: FAILED' : 'soak: passed (0 deadlocks, 0 SQLITE_BUSY, 0 errors)');
  process.exitCode = failed ? 1 : 0;
}

await main();
