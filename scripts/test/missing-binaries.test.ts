import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The test-kit fixtures on a machine that lacks a binary: the error names the binary that
// is missing and how to get it (before, a missing redis-sentinel read "redis-server on
// <port> exited with -2"). Each case runs the fixture in a child process whose PATH is a
// directory holding only what the case has; the real binaries stay where they are.
const TSX_CLI = require.resolve('tsx/cli', {
  paths: [path.join(__dirname, '..', '..', 'examples', 'demo')],
});
const CHILD = path.join(__dirname, 'fixture-child.ts');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'sluice-nobin-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A PATH of one directory with symlinks to node and the real `names` (from the real PATH). */
function pathWith(...names: string[]): string {
  symlinkSync(process.execPath, path.join(dir, 'node'));
  for (const name of names) {
    const real = (process.env.PATH ?? '')
      .split(path.delimiter)
      .map((d) => path.join(d, name))
      .find((file) => existsSync(file));
    if (real === undefined) throw new Error(`${name} is needed to run this test`);
    symlinkSync(real, path.join(dir, name));
  }
  return dir;
}

function fixture(which: 'redis' | 'sentinel', PATH: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TSX_CLI, CHILD, which],
      { env: { ...process.env, PATH }, timeout: 60_000 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

test('no redis-sentinel: startSentinel fails naming redis-sentinel, not redis-server', async () => {
  const out = await fixture('sentinel', pathWith('redis-server', 'redis-cli'));
  expect(out).toMatch(/^error: redis-sentinel is not installed/);
  expect(out).toMatch(/node scripts\/provision\.mjs.*apt-get install -y redis-sentinel/);
}, 60_000);

test('no redis-server: startRedis fails naming redis-server', async () => {
  const out = await fixture('redis', pathWith('redis-cli'));
  expect(out).toMatch(/^error: redis-server is not installed/);
}, 60_000);

test('no redis-cli: startRedis fails naming redis-cli and its package (not "did not become ready")', async () => {
  const out = await fixture('redis', pathWith('redis-server'));
  expect(out).toMatch(/^error: redis-cli is not installed .*apt-get install -y redis-server/);
}, 60_000);

test('with every binary: the same child starts Redis (the cases above fail for the binary alone)', async () => {
  const out = await fixture('redis', pathWith('redis-server', 'redis-cli'));
  expect(out).toBe('started');
}, 60_000);
