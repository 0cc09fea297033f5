/** Paths and child processes the docs tests share. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

export const DOCS = path.resolve(__dirname, '..');
export const TSX = path.join(DOCS, 'node_modules', '.bin', 'tsx');

/** Runs `command` in docs/, resolving with its exit code and output. */
export function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: DOCS, env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Stops a child started by a test and waits for it. */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Polls `url` until it answers; fails at once if `child` exits, with its output. */
export async function waitFor(
  url: string,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the snippet exited:\n${output()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`the snippet did not listen in 60 s:\n${output()}`);
}

/** An app a test started: its process, its address and what it printed so far. */
export interface StartedApp {
  child: ChildProcess;
  base: string;
  output: () => string;
}

/** Runs `file` (relative to docs/) under tsx with a free PORT; resolves once `/` answers. */
export async function startApp(file: string): Promise<StartedApp> {
  const port = await freePort();
  const child = spawn(TSX, [file], { cwd: DOCS, env: { ...process.env, PORT: String(port) } });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/`, child, () => out);
  } catch (error) {
    await stop(child);
    throw error;
  }
  return { child, base, output: () => out };
}
