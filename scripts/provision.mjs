#!/usr/bin/env node
// What the test suite needs on this machine besides the workspace's node_modules, checked
// and (on Debian, as root or with passwordless sudo) installed when missing. `pnpm test`
// runs it before jest and `.ci/run` runs it first: this list is the one place that says
// what a fresh machine needs. When everything is present it checks the files and exits
// without output (well under a second); it runs no command then.
//
//   node scripts/provision.mjs            check, install what is missing
//   node scripts/provision.mjs --dry-run  check, print the commands it would run
//
// When it cannot install (not root and no passwordless sudo, or no apt-get), it prints one
// line with the command to run and exits 1. A requirement still missing after the install
// (e.g. CHROMIUM_PATH pointing somewhere else) fails the same way.
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What the tests need. Each entry: `name` (as printed), `why`, `present(env)` (a file check,
 * no process started unless it cannot be avoided), and how to get it: `apt` (Debian
 * packages) or `npmGlobal` (an `npm install -g` spec). Add a runtime here (bun, deno, a
 * Postgres client...) and both `pnpm test` and CI provision it.
 */
export const REQUIREMENTS = [
  {
    name: 'pnpm 10',
    why: 'the workspace (pnpm 11+ needs Node 22; corepack cannot download it here)',
    present: (env) => pnpmMajor(env) === 10,
    npmGlobal: 'pnpm@10',
  },
  {
    name: 'redis-server',
    why: 'the tests start their own Redis servers and Clusters (redis-server, redis-cli)',
    present: (env) => onPath('redis-server', env) && onPath('redis-cli', env),
    apt: ['redis-server'],
  },
  {
    name: 'redis-sentinel',
    why: "the Redis suite's Sentinel topology (a failover)",
    present: (env) => onPath('redis-sentinel', env),
    apt: ['redis-sentinel'],
  },
  {
    name: 'g++, make, python3',
    why: "better-sqlite3's native addon (@sluice/sqlite), built by node-gyp when no prebuilt binary can be downloaded",
    present: (env) => onPath('g++', env) && onPath('make', env) && onPath('python3', env),
    apt: ['g++', 'make', 'python3'],
  },
  {
    name: 'chromium',
    why: "the docs site's browser test (CHROMIUM_PATH, default /usr/bin/chromium)",
    present: (env) => isExecutable(chromiumPath(env)),
    apt: ['chromium'],
  },
];

/** The Chromium the docs browser test starts (docs/test/browser.test.ts reads the same). */
export function chromiumPath(env) {
  return env.CHROMIUM_PATH || '/usr/bin/chromium';
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `command` in `env.PATH`'s directories, or undefined. */
function whichPath(command, env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && isExecutable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/** Whether `command` is an executable file in one of `env.PATH`'s directories. */
export function onPath(command, env) {
  return whichPath(command, env) !== undefined;
}

/**
 * pnpm's major version: from the user agent when pnpm runs this script, else from the
 * package.json next to the `pnpm` on PATH (npm's global install), else `pnpm --version`.
 */
function pnpmMajor(env) {
  const agent = /\bpnpm\/(\d+)\./.exec(env.npm_config_user_agent ?? '');
  if (agent) return Number(agent[1]);
  const bin = whichPath('pnpm', env);
  if (bin === undefined) return undefined;
  try {
    const manifest = join(dirname(realpathSync(bin)), '..', 'package.json');
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8'));
    if (name === 'pnpm') return Number(version.split('.')[0]);
  } catch {
    // not npm's layout: ask pnpm itself
  }
  const out = spawnSync(bin, ['--version'], { env, encoding: 'utf8', stdio: 'pipe' });
  const major = /^(\d+)\./.exec(out.stdout ?? '');
  return major ? Number(major[1]) : undefined;
}

/** The requirements missing under `env`. */
export function missing(env = process.env) {
  return REQUIREMENTS.filter((r) => !r.present(env));
}

/**
 * The commands that install `absent`, each an argv; `root` is how to run as root
 * ([] when this is root, ['sudo', '-n'] otherwise).
 */
export function installCommands(absent, root) {
  const commands = [];
  const npm = absent.filter((r) => r.npmGlobal).map((r) => r.npmGlobal);
  if (npm.length > 0) commands.push([...root, 'npm', 'install', '-g', ...npm]);
  const apt = absent.flatMap((r) => r.apt ?? []);
  if (apt.length > 0) {
    const aptGet = [...root, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
    const lock = ['-o', 'DPkg::Lock::Timeout=300'];
    commands.push([...aptGet, ...lock, 'update']);
    commands.push([...aptGet, ...lock, 'install', '-y', ...apt]);
  }
  return commands;
}

/** Why this process cannot install, or undefined when it can. */
function cannotInstall(absent, env) {
  const isRoot = process.getuid?.() === 0;
  if (!isRoot && !onPath('sudo', env)) return 'not root and no sudo';
  if (absent.some((r) => r.apt) && !onPath('apt-get', env)) return 'no apt-get';
  if (absent.some((r) => r.npmGlobal) && !onPath('npm', env)) return 'no npm';
  return undefined;
}

/** The one line a user who must install by hand reads. */
function manualLine(absent, reason) {
  const names = absent.map((r) => r.name).join(', ');
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  const steps = [];
  const npm = absent.filter((r) => r.npmGlobal).map((r) => r.npmGlobal);
  if (npm.length > 0) steps.push(`${sudo}npm install -g ${npm.join(' ')}`);
  const apt = absent.flatMap((r) => r.apt ?? []);
  if (apt.length > 0)
    steps.push(`${sudo}apt-get update`, `${sudo}apt-get install -y ${apt.join(' ')}`);
  return (
    `sluice tests: missing ${names} (${reason}): run \`${steps.join(' && ')}\`` +
    ' (or install them your way; CHROMIUM_PATH may name another Chromium), then pnpm test again'
  );
}

/**
 * Creates a policy-rc.d that says "no" (exit 101) when there is none, so apt starts no
 * service (a redis-server on 6379 would clash with the one running); returns its undo.
 */
function denyServiceStarts(root) {
  const policy = '/usr/sbin/policy-rc.d';
  if (existsSync(policy)) return () => {};
  const script = '#!/bin/sh\nexit 101\n';
  if (root.length === 0) {
    writeFileSync(policy, script);
    chmodSync(policy, 0o755);
    return () => rmSync(policy, { force: true });
  }
  run([
    ...root,
    'sh',
    '-c',
    `printf '${script.replace(/\n/g, '\\n')}' > ${policy} && chmod 755 ${policy}`,
  ]);
  return () => run([...root, 'rm', '-f', policy]);
}

function run(argv) {
  const result = spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
  return result.status === 0;
}

function main() {
  const dryRun = process.argv.includes('--dry-run');
  const env = process.env;
  const absent = missing(env);
  if (absent.length === 0) return 0;
  const reason = cannotInstall(absent, env);
  if (reason !== undefined) {
    console.error(manualLine(absent, reason));
    return 1;
  }
  const root = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const commands = installCommands(absent, root);
  const names = absent.map((r) => `${r.name} (${r.why})`).join('; ');
  console.error(`sluice tests: installing ${names}`);
  if (dryRun) {
    for (const argv of commands) console.log(argv.join(' '));
    return 0;
  }
  const undo = absent.some((r) => r.apt) ? denyServiceStarts(root) : () => {};
  let ok = true;
  try {
    for (const argv of commands) {
      if (!run(argv)) {
        ok = false;
        break;
      }
    }
  } finally {
    undo();
  }
  const still = missing(env);
  if (!ok || still.length > 0) {
    console.error(manualLine(still.length > 0 ? still : absent, 'the install failed'));
    return 1;
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main();
