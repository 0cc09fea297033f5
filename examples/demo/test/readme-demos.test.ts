import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

// Every `pnpm demo*` line of the README, run as a reader runs it on a fresh clone: through
// pnpm, from the repository root, with no build. Each process loads test/from-source (a
// resolve hook), so a sluice package that resolves to its build (packages/*/dist) fails the
// start even where an earlier `pnpm build` left one behind. A server demo must answer
// 200 then 429; a driver must finish with exit code 0 against a running demo.
const ROOT = path.join(__dirname, '..', '..', '..');
const FROM_SOURCE = path.join(__dirname, 'from-source', 'register.mjs');

/** The `pnpm demo…` commands the README names (script and flags), e.g. `demo:nestjs --fastify`. */
function readmeDemoCommands(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const commands = new Set<string>();
  for (const m of readme.matchAll(/pnpm (demo(?::[\w-]+)?)((?: --[a-z-]+)*)/g)) {
    commands.add(`${m[1]}${m[2]}`);
  }
  // "pnpm demo:nestjs  # … (--fastify for the Fastify platform)"
  for (const m of readme.matchAll(/pnpm (demo:[\w-]+)\s+#[^\n]*\((--[a-z-]+) for /g)) {
    commands.add(`${m[1]} ${m[2]}`);
  }
  return [...commands].sort();
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * `count` consecutive free ports on 127.0.0.1; the first of them. Below 32,768, where Linux's
 * ephemeral range starts (`ip_local_port_range`): between this check and the demo's listen, a
 * port there is never handed to another test's `listen(0)` or outgoing connection (one was,
 * on a clean-clone CI run, when the range went up to 60,000).
 */
async function freePorts(count: number): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no free ports');
}

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `pnpm <command>` from the root, in a process group of its own (stopped by its pid). */
function pnpm(command: string, env: Record<string, string>): Running {
  const child = spawn('pnpm', command.split(' '), {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...env,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${FROM_SOURCE}`.trim(),
    },
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output: () => out, exited };
}

async function stop(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  try {
    process.kill(-running.child.pid!, 'SIGTERM');
  } catch {
    return; // the group is gone
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-running.child.pid!, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }, 5_000);
  await running.exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers; fails at once if the demo exits, with its output. */
async function answering(url: string, running: Running): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null)
      throw new Error(`exited with ${running.child.exitCode}:\n${running.output()}`);
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${url} did not answer within 90 s:\n${running.output()}`);
}

/** The statuses of `n` requests, one at a time. */
async function statuses(n: number, url: string, init?: RequestInit): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(url, init);
    await res.arrayBuffer();
    out.push(res.status);
  }
  return out;
}

/** The NestJS demo: 10 a minute on GET /users/:id, then 429. */
async function nestDemo(command: string): Promise<void> {
  const port = await freePorts(1);
  const running = pnpm(command, { PORT: String(port) });
  try {
    await answering(`http://127.0.0.1:${port}/health`, running);
    const got = await statuses(11, `http://127.0.0.1:${port}/users/1`);
    expect(got).toEqual([...Array(10).fill(200), 429]);
  } finally {
    await stop(running);
  }
}

const CASES: Record<string, () => Promise<void>> = {
  'demo:nestjs': () => nestDemo('demo:nestjs'),
  'demo:nestjs --fastify': () => nestDemo('demo:nestjs --fastify'),
};

// `pnpm demo`, then each driver against it: one demo for all of them.
const SERVER_AND_DRIVERS = ['demo', 'demo:drive', 'demo:drive --paced'];

test('the README names these demo commands, each run below', () => {
  expect(readmeDemoCommands()).toEqual([...SERVER_AND_DRIVERS, ...Object.keys(CASES)].sort());
});

test('pnpm demo answers 200 then 429 on each framework; pnpm demo:drive (and --paced) runs against it', async () => {
  const base = await freePorts(3);
  const demo = pnpm('demo', { PORT_BASE: String(base) });
  try {
    for (let i = 0; i < 3; i++) await answering(`http://127.0.0.1:${base + i}/`, demo);
    for (let i = 0; i < 3; i++) {
      const login = await statuses(6, `http://127.0.0.1:${base + i}/login`, { method: 'POST' });
      expect(login).toEqual([200, 200, 200, 200, 200, 429]);
    }
    for (const command of ['demo:drive', 'demo:drive --paced']) {
      const driver = pnpm(command, { PORT_BASE: String(base) });
      const code = await driver.exited;
      if (code !== 0) throw new Error(`pnpm ${command} exited with ${code}:\n${driver.output()}`);
      expect(driver.output()).toMatch(/express/);
      expect(driver.output()).toMatch(/koa/);
    }
  } finally {
    await stop(demo);
  }
}, 240_000);

test.each(Object.keys(CASES))(
  'pnpm %s answers 200 then 429, from source',
  async (command) => {
    await CASES[command]!();
  },
  120_000,
);
