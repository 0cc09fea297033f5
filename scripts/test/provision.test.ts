import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// scripts/provision.mjs on a "fresh machine": a PATH of our own that holds only the
// binaries a case names (node, plus symlinks or fake commands), and CHROMIUM_PATH pointing
// at nothing or at an executable. --dry-run prints the install commands instead of running
// them, so no case installs anything on this machine.
const SCRIPT = path.join(__dirname, '..', 'provision.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function provision(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { env, timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let bin: string;
let chromium: string;

/** A PATH directory holding `names`: each a symlink to the real one, or a fake when absent. */
function machineWith(...names: string[]): string {
  const dir = mkdtempSync(path.join(bin, 'path-'));
  symlinkSync(process.execPath, path.join(dir, 'node'));
  for (const name of names) {
    // a stand-in: the script checks for an executable file and never runs these here
    writeFileSync(path.join(dir, name), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  }
  return dir;
}

beforeAll(() => {
  bin = mkdtempSync(path.join(tmpdir(), 'sluice-provision-'));
  chromium = path.join(bin, 'chromium');
  writeFileSync(chromium, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

const PNPM10 = { npm_config_user_agent: 'pnpm/10.34.9 npm/? node/v20.20.2 linux x64' };
// A machine of this kind ships g++, make and python3 (node-gyp's toolchain).
const BUILD = ['g++', 'make', 'python3'];
const ALL = ['redis-server', 'redis-cli', 'redis-sentinel', 'apt-get', 'npm', 'sudo', ...BUILD];

test('everything present: exits 0 and prints nothing', async () => {
  const r = await provision({ PATH: machineWith(...ALL), CHROMIUM_PATH: chromium, ...PNPM10 });
  expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
});

test('no redis-sentinel, no Chromium: apt-get update, then one install of both (dry run)', async () => {
  const PATH = machineWith('redis-server', 'redis-cli', 'apt-get', 'npm', 'sudo', ...BUILD);
  const r = await provision(
    { PATH, CHROMIUM_PATH: path.join(bin, 'no-chromium'), ...PNPM10 },
    '--dry-run',
  );
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/installing redis-sentinel .*; chromium /);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/apt-get .*update$/);
  expect(lines[1]).toMatch(/apt-get .*install -y redis-sentinel chromium$/);
  expect(r.stdout).not.toMatch(/redis-server|npm install/);
});

test('no redis-cli: installs redis-server (the package that ships both)', async () => {
  const PATH = machineWith('redis-server', 'redis-sentinel', 'apt-get', 'sudo', ...BUILD);
  const r = await provision({ PATH, CHROMIUM_PATH: chromium, ...PNPM10 }, '--dry-run');
  expect(r.code).toBe(0);
  expect(r.stdout.trim().split('\n').at(-1)).toMatch(/install -y redis-server$/);
});

test('no pnpm: npm install -g pnpm@10; a pnpm 11 counts as missing', async () => {
  const PATH = machineWith(...ALL);
  const none = await provision({ PATH, CHROMIUM_PATH: chromium }, '--dry-run');
  expect(none.code).toBe(0);
  expect(none.stdout.trim()).toMatch(/^(sudo -n )?npm install -g pnpm@10$/);
  const eleven = await provision(
    { PATH, CHROMIUM_PATH: chromium, npm_config_user_agent: 'pnpm/11.0.0 node/v22' },
    '--dry-run',
  );
  expect(eleven.stdout.trim()).toMatch(/npm install -g pnpm@10$/);
});

test('cannot install (no apt-get): one line naming what is missing and what to run, exit 1', async () => {
  const PATH = machineWith('redis-server', 'redis-cli', 'npm', 'sudo', ...BUILD);
  const r = await provision({ PATH, CHROMIUM_PATH: path.join(bin, 'none'), ...PNPM10 });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/missing redis-sentinel, chromium \(no apt-get\)/);
  expect(lines[0]).toMatch(/apt-get update && (sudo )?apt-get install -y redis-sentinel chromium/);
});
