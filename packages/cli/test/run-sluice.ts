// Runs the sluice command as a user runs it: a child process (src/bin.ts through tsx, with
// the root tsconfig's paths mapping @sluice/* to the sources).
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const BIN = join(__dirname, '..', 'src', 'bin.ts');
const TSX = join(dirname(require.resolve('tsx/package.json')), 'dist', 'cli.mjs');

/** What one run of the command gave. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `sluice ...args` with only PATH and `env` in its environment. */
export function sluice(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSX, BIN, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Asserts that no output of `run` holds any of `secrets`; returns `run`. */
export function cleanOf(run: Run, ...secrets: string[]): Run {
  for (const secret of secrets) {
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
  }
  return run;
}

/** Waits for `check` to hold, polling; fails after `ms` (a bound far past what is expected). */
export async function until(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
