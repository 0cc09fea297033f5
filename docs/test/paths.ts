/** Paths and child processes the docs tests share. */
import { type ChildProcess, spawn } from 'node:child_process';
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
