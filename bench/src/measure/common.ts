import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gcra } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { type RedisProcess, startRedis } from '@sluice/test-kit';
import Table from 'cli-table3';

/** The machine, as each part's JSON reports it. */
export function machine(): { cores: number; cpu: string; node: string; platform: string } {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
  };
}

/** The `q` quantile of `xs` (0 ≤ q ≤ 1), interpolated between the two nearest values. */
export const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  const at = q * (s.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return s[lo]! + (s[hi]! - s[lo]!) * (at - lo);
};

/** The median of `xs` (mean of the two middle values for an even count). */
export const median = (xs: number[]): number => quantile(xs, 0.5);

/**
 * Interleaved rounds, the one loop of every part: `warmUp` (unmeasured) of each subject first
 * when given, then `rounds` rounds measuring each subject once in turn, so a change in the
 * machine's load falls on every subject alike. Returns each subject's figures, one per round.
 */
export async function interleave<const T extends readonly unknown[]>(
  subjects: T,
  rounds: number,
  measure: (subject: T[number]) => number | Promise<number>,
  { warmUp, label = '' }: { warmUp?: (subject: T[number]) => unknown; label?: string } = {},
): Promise<{ -readonly [K in keyof T]: number[] }> {
  if (warmUp !== undefined) for (const s of subjects) await warmUp(s);
  const figures = subjects.map((): number[] => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, s] of subjects.entries()) figures[i]!.push(await measure(s));
    process.stderr.write(`${label}round ${r + 1}/${rounds} done\n`);
  }
  return figures as { -readonly [K in keyof T]: number[] };
}

/** Writes `report` as indented JSON to `file` when one is given (`--json`). */
export function writeJson(file: string | undefined, report: unknown): void {
  if (file !== undefined) writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** The arithmetic mean of `xs`. */
export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A cli-table3 table without colours (the reports are read from files and logs). */
export const plainTable = (head: string[]): Table.Table =>
  new Table({ style: { head: [], border: [] }, head });

/** `redis-server --version`'s version (`7.0.15`), `'?'` when unreadable, `'not found'` without one. */
export function redisServerVersion(): string {
  try {
    const out = execFileSync('redis-server', ['--version'], { encoding: 'utf8' });
    return out.match(/v=(\S+)/)?.[1] ?? '?';
  } catch {
    return 'not found';
  }
}

/** What reads one `INFO` section of a redis-server: an ioredis client, or {@link cliInfo}. */
export type Info = { info(section: string): Promise<string> };
/** {@link Info} through test-kit's `redis-cli`. */
export const cliInfo = (redis: RedisProcess): Info => ({ info: (s) => redis.cli('INFO', s) });

/** Numeric fields of one `INFO` section, read from one reply (so taken at one instant). */
export async function infoFields(info: Info, section: string, fields: string[]): Promise<number[]> {
  const text = await info.info(section);
  return fields.map((field) => {
    const m = new RegExp(`^${field}:([\\d.]+)`, 'm').exec(text);
    if (m === null) throw new Error(`INFO ${section} has no ${field}:\n${text}`);
    return Number(m[1]);
  });
}

/** One numeric field of one `INFO` section. */
export const infoField = async (info: Info, section: string, field: string): Promise<number> =>
  (await infoFields(info, section, [field]))[0]!;

/** The redis-server's CPU (user + system) so far, µs, from one INFO cpu. */
export async function redisCpuUs(info: Info): Promise<number> {
  const [user, sys] = await infoFields(info, 'cpu', ['used_cpu_user', 'used_cpu_sys']);
  return (user! + sys!) * 1e6;
}

/** Script calls (EVAL, EVALSHA, FCALL, their _ro forms) so far, from INFO commandstats. */
export async function scriptCalls(info: Info): Promise<number> {
  let calls = 0;
  for (const m of (await info.info('commandstats')).matchAll(
    /^cmdstat_(?:eval|evalsha|fcall)(?:_ro)?:calls=(\d+)/gm,
  ))
    calls += Number(m[1]);
  return calls;
}

/** Whether this machine can pin processes to a core (`taskset` runs, and ≥ 2 cores). */
export function canPin(): boolean {
  if (os.cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins every thread of process `pid` to `core` with taskset. */
export function pin(pid: number, core: number): void {
  execFileSync('taskset', ['-a', '-cp', String(core), String(pid)], { stdio: 'ignore' });
}

/** 1000/s (a whole-ms interval, as most limits have) with a burst of 1e9: never denies. */
export const gcraAlgo = (): Algorithm => gcra({ rate: 1000, period: '1s', burst: 1e9 });
/** {@link gcraAlgo} as the reports print it. */
export const GCRA_CONFIG = 'gcra({ rate: 1000, period: "1s", burst: 1e9 })';

/** Scale runs: every key stays stored (TAT an hour ahead) and is never denied. */
export const residentAlgo = (): Algorithm => gcra({ rate: 1, period: '1h', burst: 1e7 });
/** {@link residentAlgo} as the reports print it. */
export const RESIDENT_CONFIG = 'gcra({ rate: 1, period: "1h", burst: 1e7 })';

/** Runs `fn` with a redis-server of its own, stopped when `fn` settles or on SIGINT / SIGTERM. */
export async function withRedis<T>(fn: (server: RedisProcess) => Promise<T>): Promise<T> {
  const server = await startRedis();
  const stop = () => server.stop();
  const onSignal = () => {
    void stop().finally(() => process.exit(130));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, onSignal);
  try {
    return await fn(server);
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, onSignal);
    await stop();
  }
}

/** Decisions/s of `consume` with `inflight` calls outstanding for `ms`, over `keys` round robin. */
export async function measureRate(
  consume: (key: string) => Promise<unknown>,
  keys: string[],
  ms: number,
  inflight: number,
): Promise<number> {
  const n = keys.length;
  let i = 0;
  let ops = 0;
  const start = performance.now();
  const end = start + ms;
  const worker = async () => {
    while (performance.now() < end) {
      const key = keys[i]!;
      if (++i === n) i = 0;
      await consume(key);
      ops++;
    }
  };
  const workers: Promise<void>[] = [];
  for (let w = 0; w < inflight; w++) workers.push(worker());
  await Promise.all(workers);
  return (ops * 1000) / (performance.now() - start);
}

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * A server process of `script` (from source, on `core` (default 1) when `pinned`) that replies
 * `{ port }` once it listens, as ./http-server.ts, ../protocols/yoga-server.ts and ../overload.ts do.
 */
export function spawnServer(
  script: string,
  argv: string[],
  options: { pinned: boolean; core?: number; node?: string[]; wrap?: string[] },
): Promise<{ child: ChildProcess; port: number }> {
  const { pinned, core = 1, node = [], wrap = [] } = options;
  // `wrap`: a command the server runs under (bench:instructions' valgrind).
  const file = path.resolve(here, script);
  const cmd = [...wrap, process.execPath, ...node, '--import', 'tsx', file, ...argv];
  const [bin, ...args] = pinned ? ['taskset', '-c', String(core), ...cmd] : cmd;
  const child = spawn(bin!, args, {
    cwd: path.resolve(here, '../..'),
    env: { ...process.env, TSX_TSCONFIG_PATH: path.resolve(here, '../../../tsconfig.json') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} ${argv.join(' ')} exited (${code})`)));
    child.once('message', (msg: { port: number }) => {
      child.removeAllListeners('exit');
      resolve({ child, port: msg.port });
    });
  });
}

/** Ends `child` (with `how`: a signal, or cutting its IPC channel) and resolves once it has exited. */
export function stopChild(child: ChildProcess, how: NodeJS.Signals | 'disconnect' = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (how === 'disconnect') child.disconnect();
  else child.kill(how);
  return exited;
}

/** One ./http-server.ts process of `framework` and `variant`; resolves once it listens. */
export const spawnApp = (
  framework: string,
  variant: string,
  redisPort: number | undefined,
  options: { pinned: boolean; node?: string[]; wrap?: string[] },
) =>
  spawnServer(
    'http-server.ts',
    [framework, variant, ...(redisPort ? [String(redisPort)] : [])],
    options,
  );

/**
 * A server's CPU protocol: `start` (resolves once sent), `stop` (the CPU µs since `start`), or a
 * request of its own (`inproc`: its reply's µs).
 */
export function askCpu(child: ChildProcess, type: string, n?: number): Promise<number> {
  return new Promise((resolve) => {
    if (type === 'start') {
      child.send({ type }, () => resolve(0));
      return;
    }
    child.once('message', (msg: { us: number }) => resolve(msg.us));
    child.send({ type, n });
  });
}
