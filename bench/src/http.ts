/**
 * `pnpm bench:http`: sluice's Express, Fastify and Koa adapters against each framework's
 * usual limiter, over real HTTP (the "memory" rows).
 *
 * Per framework, a hello-world route served by its own process pinned to one core
 * (`taskset -c 1`; this process, which runs autocannon, is pinned to core 0): unlimited,
 * limited by sluice (in-memory, never denies, keyed per IP), limited by the peer
 * (express-rate-limit / @fastify/rate-limit / koa-ratelimit with its memory store, never
 * denies, default headers). Plus Fastify with every request denied (429): sluice,
 * @fastify/rate-limit and rate-limiter-flexible; and on Redis ("Fastify, Redis,
 * allow", "Koa, Redis, allow"): sluice with a RedisStore vs rate-limiter-flexible's
 * RateLimiterRedis and the framework's limiter with its Redis store (@fastify/rate-limit,
 * koa-ratelimit), on a redis-server this bench starts (127.0.0.1, a free port, no persistence;
 * pinned to core 0 with autocannon, apart from the server under test) only when a Redis case
 * is selected, and stops at the end. Servers are measured interleaved
 * (A B C A B C …), each server in a new process every round (see `restart`), and the medians of the rounds reported: requests/s, the ratio
 * limited / unlimited (per round, then the median), and the server's CPU per request
 * (`process.cpuUsage()` delta / responses); Δµs = limiter CPU per request minus unlimited.
 * The CPU ratio (unlimited CPU per request / limited) is what the req/s ratio is when the
 * server is CPU-bound; it also holds when the client or a busy machine is the bottleneck
 * (server busy well under 100%), where the req/s ratio mostly measures noise.
 *
 * sluice runs from source (packages/<name>/src through tsx, the root tsconfig's paths), so
 * a change to the hot path is measured without a build.
 *
 * Flags: `--rounds`, `--duration` (s), `--warmup` (s), `--connections`; `--only` takes case
 * ids (fastify-memory, fastify-deny, express-memory, koa-memory, fastify-redis, koa-redis,
 * nest-express-memory, nest-express-deny, nest-express-redis and the same for nest-fastify,
 * fastify-redis-prefetch, koa-redis-prefetch) or framework
 * names (every case of that framework), comma-separated; `--json <file>` writes every figure,
 * round and the configuration (read by `pnpm bench`'s report).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RedisProcess } from '@sluice/test-kit';
import autocannon from 'autocannon';
import type { Framework as PlainFramework, Variant } from './cases/http-apps.js';
import type { NestFramework } from './cases/nest-apps.js';
import { parseCommand, shared } from './cli/args.js';
import {
  canPin,
  machine,
  median,
  pin,
  plainTable,
  redisServerVersion,
  withRedis,
} from './measure/common.js';

type Framework = PlainFramework | NestFramework;

const { values: args } = parseCommand({
  usage: 'pnpm bench:http -- [options]',
  summary:
    "HTTP end to end: requests/s and server CPU per request of sluice's adapters against each framework's usual limiter, over real HTTP (autocannon).",
  options: {
    rounds: shared.rounds(5),
    duration: { type: 'number', default: 3, help: 'seconds per measurement' },
    warmup: { type: 'number', default: 1, help: 'seconds of warm-up before each measurement' },
    connections: { type: 'number', default: 50, help: 'autocannon connections' },
    only: {
      type: 'string',
      help: 'case ids or framework names, comma-separated (every case of that framework)',
    },
    json: shared.json,
    baselines: {
      type: 'boolean',
      help: 'also measure a no-op middleware and one that only sets the X-RateLimit-* headers (never judged)',
    },
  },
});
const ROUNDS = args.rounds;
const DURATION = args.duration;
const WARMUP = args.warmup;
const CONNECTIONS = args.connections;

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

interface Server {
  framework: Framework;
  variant: Variant;
  label: string;
  child: ChildProcess;
  port: number;
  /** Rate-limit header names and status of one request made before the measurements. */
  probe: string;
  rps: number[];
  cpuUs: number[];
  busy: number[];
  /** Redis script calls per request (Redis variants only). */
  redisCalls: number[];
  /** The redis-server's CPU (user + system) per request, µs (Redis variants only). */
  redisCpuUs: number[];
}

interface Group {
  /** For `--only` and the JSON. */
  id: string;
  title: string;
  framework: Framework;
  base: Variant;
  /** [variant, label] */
  limited: [Variant, string][];
  /** The minimum ratio sluice must reach (undefined: only "ahead of the peers"). */
  floor: number | undefined;
  /** The aim: req/s ratio at least `ratio`, and Δµs at most `us` when given. */
  aim: { ratio: number; us?: number };
}

const GROUPS: Group[] = [
  {
    id: 'fastify-memory',
    title: 'Fastify, memory, allow',
    framework: 'fastify',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', '@fastify/rate-limit'],
    ],
    floor: 0.9,
    aim: { ratio: 0.95, us: 1 },
  },
  {
    id: 'fastify-deny',
    title: 'Fastify, memory, all denied (429)',
    framework: 'fastify',
    base: 'none',
    limited: [
      ['sluice-deny', 'sluice'],
      ['peer-deny', '@fastify/rate-limit'],
      ['rlf-deny', 'rate-limiter-flexible'],
    ],
    floor: undefined,
    aim: { ratio: 0.95, us: 2 },
  },
  {
    id: 'express-memory',
    title: 'Express, memory, allow',
    framework: 'express',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', 'express-rate-limit'],
    ],
    floor: 0.95,
    aim: { ratio: 0.97, us: 3 },
  },
  {
    id: 'koa-memory',
    title: 'Koa, memory, allow',
    framework: 'koa',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', 'koa-ratelimit'],
    ],
    floor: 0.95,
    aim: { ratio: 0.99 },
  },
  {
    id: 'fastify-redis',
    title: 'Fastify, Redis, allow',
    framework: 'fastify',
    base: 'none',
    limited: [
      ['sluice-redis', 'sluice'],
      ['peer-redis', '@fastify/rate-limit'],
      ['rlf-redis', 'rate-limiter-flexible'],
    ],
    floor: undefined,
    aim: { ratio: 0.7, us: 6 },
  },
  {
    id: 'fastify-redis-prefetch',
    title: 'Fastify, Redis + prefetch, allow',
    framework: 'fastify',
    base: 'none',
    limited: [
      ['sluice-prefetch-redis', 'sluice (prefetch)'],
      ['sluice-redis', 'sluice (no prefetch)'],
    ],
    floor: 0.85,
    aim: { ratio: 0.92 },
  },
  {
    id: 'koa-redis',
    title: 'Koa, Redis, allow',
    framework: 'koa',
    base: 'none',
    limited: [
      ['sluice-redis', 'sluice'],
      ['rlf-redis', 'rate-limiter-flexible'],
      ['peer-redis', 'koa-ratelimit'],
    ],
    floor: undefined,
    aim: { ratio: 0.8 },
  },
  {
    id: 'nest-express-memory',
    title: 'Nest on Express, memory, allow',
    framework: 'nest-express',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', '@nestjs/throttler'],
    ],
    floor: undefined,
    aim: { ratio: 0.95 },
  },
  {
    id: 'nest-express-deny',
    title: 'Nest on Express, memory, all denied (429)',
    framework: 'nest-express',
    base: 'none',
    limited: [
      ['sluice-deny', 'sluice'],
      ['peer-deny', '@nestjs/throttler'],
    ],
    floor: undefined,
    aim: { ratio: 0.95 },
  },
  {
    id: 'nest-express-redis',
    title: 'Nest on Express, Redis, allow',
    framework: 'nest-express',
    base: 'none',
    limited: [
      ['sluice-redis', 'sluice'],
      ['peer-redis', '@nestjs/throttler + @nest-lab/throttler-storage-redis'],
    ],
    floor: undefined,
    aim: { ratio: 0.8 },
  },
  {
    id: 'nest-fastify-memory',
    title: 'Nest on Fastify, memory, allow',
    framework: 'nest-fastify',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', '@nestjs/throttler'],
    ],
    floor: undefined,
    aim: { ratio: 0.95 },
  },
  {
    id: 'nest-fastify-deny',
    title: 'Nest on Fastify, memory, all denied (429)',
    framework: 'nest-fastify',
    base: 'none',
    limited: [
      ['sluice-deny', 'sluice'],
      ['peer-deny', '@nestjs/throttler'],
    ],
    floor: undefined,
    aim: { ratio: 0.95 },
  },
  {
    id: 'nest-fastify-redis',
    title: 'Nest on Fastify, Redis, allow',
    framework: 'nest-fastify',
    base: 'none',
    limited: [
      ['sluice-redis', 'sluice'],
      ['peer-redis', '@nestjs/throttler + @nest-lab/throttler-storage-redis'],
    ],
    floor: undefined,
    aim: { ratio: 0.8 },
  },
  {
    id: 'koa-redis-prefetch',
    title: 'Koa, Redis + prefetch, allow',
    framework: 'koa',
    base: 'none',
    limited: [
      ['sluice-prefetch-redis', 'sluice (prefetch)'],
      ['sluice-redis', 'sluice (no prefetch)'],
    ],
    floor: 0.85,
    aim: { ratio: 0.95 },
  },
];

/** The variants that talk to the bench's redis-server (its port is passed to the server). */
const needsRedis = (v: Variant) => v.endsWith('-redis');

const aimText = (g: Group) =>
  `>= ${g.aim.ratio.toFixed(2)}${g.aim.us === undefined ? '' : `, <= +${g.aim.us} µs`}`;
const floorText = (g: Group) =>
  `${g.floor === undefined ? '' : `>= ${g.floor.toFixed(2)}, `}ahead of peers`;

const SLUICE_CONFIG =
  "'throttle:60000000,1000' (GCRA, T = 1 ms, burst 6e7: never denies) / 'throttle:1,60' (denied rows), MemoryStore (Redis rows: RedisStore({ client }), onStoreError 'deny'), keyed per IP, legacy X-RateLimit-* headers";
const PEERS_CONFIG =
  'express-rate-limit({ limit: 1e9 }), @fastify/rate-limit({ max: 1e9 } / { max: 1, timeWindow: 1 h } / Redis row: { max: 1e9, redis: client }), ' +
  "koa-ratelimit({ driver: 'memory', db: new Map(), max: 1e9 } / Redis row: { driver: 'redis', db: client, max: 1e9 }; its Redis driver is a sliding log, one sorted-set entry per request kept for the 60 s window), " +
  'rate-limiter-flexible RateLimiterMemory({ points: 1, duration: 3600 }) in a Fastify onRequest hook / Redis rows: RateLimiterRedis({ storeClient: client, useRedisPackage: false, points: 1e9, duration: 60 }) in a Fastify onRequest hook or a Koa middleware, setting X-RateLimit-Limit/-Remaining/-Reset; every peer keyed per IP, 60 s window unless said';
const REDIS_CLIENT =
  "one ioredis client per server process, new Redis({ host: '127.0.0.1', port })";

const PIN = canPin();

function start(
  framework: Framework,
  variant: Variant,
  label: string,
  redis: RedisProcess | undefined,
): Promise<Server> {
  const node = [process.execPath, '--import', 'tsx', path.join(here, 'measure/http-server.ts')];
  const [cmd, ...argv] = PIN ? ['taskset', '-c', '1', ...node] : node;
  const redisArg = needsRedis(variant) ? [String(redis!.port)] : [];
  const child = spawn(cmd!, [...argv, framework, variant, ...redisArg], {
    cwd: path.resolve(here, '..'),
    // The root tsconfig maps @sluice/* to packages/*/src: the adapters run from source.
    env: { ...process.env, TSX_TSCONFIG_PATH: path.join(root, 'tsconfig.json') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${framework} ${variant} exited (${code})`)));
    child.once('message', (msg: { type: string; port: number }) => {
      child.removeAllListeners('exit');
      resolve({
        framework,
        variant,
        label,
        child,
        port: msg.port,
        probe: '',
        rps: [],
        cpuUs: [],
        busy: [],
        redisCalls: [],
        redisCpuUs: [],
      });
    });
  });
}

/**
 * A new process for `s`, for the next round. Some processes of the same app settle into a
 * slower steady state for their whole life (cause not found), so one process per server would
 * carry its luck into every round; a process per round lets the median see past it. Seen in
 * this bench's per-round figures (`--only fastify-memory --baselines`): the do-nothing
 * Fastify hook at 9.4–9.7 µs of CPU per request in some rounds' processes and 12.5–12.8 µs in
 * the others', and the same for the headers-only hook and for sluice.
 */
async function restart(s: Server, redis: RedisProcess | undefined): Promise<void> {
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill();
  await exited;
  const fresh = await start(s.framework, s.variant, s.label, redis);
  s.child = fresh.child;
  s.port = fresh.port;
}

function ask(child: ChildProcess, type: 'start' | 'stop'): Promise<number> {
  return new Promise((resolve) => {
    if (type === 'start') {
      child.send({ type }, () => resolve(0));
      return;
    }
    child.once('message', (msg: { us: number }) => resolve(msg.us));
    child.send({ type });
  });
}

/** One request: which rate-limit headers came back, and the status. */
async function probe(s: Server): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${s.port}/`);
  await res.text();
  const names = [...res.headers.keys()].filter((h) => /ratelimit|retry-after/i.test(h));
  s.probe = `${res.status} ${names.join(', ') || '(no rate-limit headers)'}`;
}

interface Shot {
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  seconds: number;
}

async function load(port: number, seconds: number): Promise<Shot> {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/`,
    connections: CONNECTIONS,
    duration: seconds,
  });
  const requests = r.requests.total;
  return {
    rps: requests / r.duration,
    requests,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    seconds: r.duration,
  };
}

/**
 * Script calls (EVAL, EVALSHA, FCALL and their _ro forms) the redis-server has taken so far,
 * from INFO commandstats: the commands a script runs are counted apart, under their names.
 */
async function scriptCalls(redis: RedisProcess): Promise<number> {
  const info = await redis.cli('INFO', 'commandstats');
  let calls = 0;
  for (const m of info.matchAll(/^cmdstat_(?:eval|evalsha|fcall)(?:_ro)?:calls=(\d+)/gm))
    calls += Number(m[1]);
  return calls;
}

/** The redis-server's CPU (user + system) so far, µs, from INFO cpu. */
async function redisCpu(redis: RedisProcess): Promise<number> {
  const info = await redis.cli('INFO', 'cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)![1]);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

async function measure(s: Server, redis: RedisProcess | undefined): Promise<void> {
  const viaRedis = redis !== undefined && needsRedis(s.variant) ? redis : undefined;
  const calls0 = viaRedis && (await scriptCalls(viaRedis));
  const cpu0 = viaRedis && (await redisCpu(viaRedis));
  await ask(s.child, 'start');
  const shot = await load(s.port, DURATION);
  const us = await ask(s.child, 'stop');
  if (viaRedis !== undefined) {
    s.redisCalls.push(((await scriptCalls(viaRedis)) - calls0!) / shot.requests);
    s.redisCpuUs.push(((await redisCpu(viaRedis)) - cpu0!) / shot.requests);
  }
  if (shot.errors > 0) throw new Error(`${s.framework} ${s.variant}: ${shot.errors} errors`);
  const denies = s.variant.endsWith('-deny');
  if (!denies && shot.non2xx > 0)
    throw new Error(`${s.framework} ${s.variant}: ${shot.non2xx} non-2xx (must never deny)`);
  if (denies && shot.non2xx < shot.requests)
    throw new Error(`${s.framework} ${s.variant}: some requests allowed (must deny all)`);
  s.rps.push(shot.rps);
  s.cpuUs.push(us / shot.requests);
  s.busy.push(us / (shot.seconds * 1e6));
}

/** One server's figures in a case (medians, and every round). */
export interface HttpRow {
  /** 'unlimited', 'sluice' or the peer's name. */
  limiter: string;
  role: 'unlimited' | 'sluice' | 'peer' | 'baseline';
  variant: Variant;
  /** Requests/s: median and per round. */
  rps: number;
  rpsRounds: number[];
  /** limited / unlimited req/s, median of the per-round ratios (null for unlimited). */
  ratio: number | null;
  ratioRounds: number[] | null;
  /** Server CPU (user + system) per request, µs: median and per round. */
  cpuUs: number;
  cpuUsRounds: number[];
  /** Median of (limited - unlimited CPU µs per request) per round (null for unlimited). */
  deltaUs: number | null;
  /** Median of (unlimited / limited CPU per request) per round (null for unlimited). */
  cpuRatio: number | null;
  /** Server CPU time / wall time: median and per round. */
  busy: number;
  busyRounds: number[];
  /** Redis script calls per request (INFO commandstats EVAL/EVALSHA/FCALL delta / responses): median and per round; null without Redis. */
  redisCalls: number | null;
  redisCallsRounds: number[] | null;
  /**
   * The redis-server's CPU per request (INFO cpu delta / responses, µs: includes the INFO
   * calls themselves and anything else the server did meanwhile): median; null without
   * Redis. 1e6 / it = decisions/s one Redis core could serve.
   */
  redisCpuUs: number | null;
  /** Status and rate-limit header names of the first response. */
  probe: string;
}

export interface HttpCase {
  id: string;
  title: string;
  framework: Framework;
  /** Minimum req/s ratio sluice must reach (null: only "ahead of peers"). */
  floor: number | null;
  floorText: string;
  aim: { ratio: number; us: number | null };
  aimText: string;
  /** Floor met and ahead of every peer, on the req/s ratio / on the CPU ratio. */
  verdict: 'PASS' | 'FAIL';
  cpuVerdict: 'PASS' | 'FAIL';
  /** sluice's req/s ratio >= aim.ratio and Δµs <= aim.us. */
  aimMet: boolean;
  /** Unlimited, sluice, then the peers. */
  rows: HttpRow[];
}

/** The JSON written by `--json` (read by `pnpm bench`'s report). */
export interface HttpReport {
  kind: 'http';
  date: string;
  machine: { cores: number; cpu: string; node: string; platform: string };
  config: {
    rounds: number;
    duration: number;
    warmup: number;
    connections: number;
    pinned: boolean;
    pinning: string;
    sluice: string;
    peers: string;
    /** The bench's redis-server, when a Redis case ran; `pinning`: where it ran. */
    redis: { version: string; port: number; client: string; pinning: string } | null;
    /** 1/5/15-minute load averages at the start and the end. */
    loadStart: number[];
    loadEnd: number[];
  };
  cases: HttpCase[];
  overall: { rps: 'PASS' | 'FAIL'; cpu: 'PASS' | 'FAIL' };
}

/** The case's figures and verdicts from its servers' rounds. */
function judge(g: Group, base: Server, limited: Server[]): HttpCase {
  const perRound = (s: Server, f: (x: number, b: number) => number, xs: 'rps' | 'cpuUs') =>
    s[xs].map((x, i) => f(x, base[xs][i]!));
  const row = (s: Server): HttpRow => {
    const isBase = s === base;
    const ratioRounds = isBase ? null : perRound(s, (x, b) => x / b, 'rps');
    return {
      limiter: isBase ? 'unlimited' : s.label,
      role: isBase
        ? 'unlimited'
        : s === limited[0]
          ? 'sluice'
          : BASELINES.some(([v]) => v === s.variant)
            ? 'baseline'
            : 'peer',
      variant: s.variant,
      rps: median(s.rps),
      rpsRounds: s.rps,
      ratio: ratioRounds && median(ratioRounds),
      ratioRounds,
      cpuUs: median(s.cpuUs),
      cpuUsRounds: s.cpuUs,
      deltaUs: isBase ? null : median(perRound(s, (x, b) => x - b, 'cpuUs')),
      cpuRatio: isBase ? null : median(perRound(s, (x, b) => b / x, 'cpuUs')),
      busy: median(s.busy),
      busyRounds: s.busy,
      redisCalls: s.redisCalls.length > 0 ? median(s.redisCalls) : null,
      redisCallsRounds: s.redisCalls.length > 0 ? s.redisCalls : null,
      redisCpuUs: s.redisCpuUs.length > 0 ? median(s.redisCpuUs) : null,
      probe: s.probe,
    };
  };
  const [sluice, ...others] = limited.map(row) as [HttpRow, ...HttpRow[]];
  const peers = others.filter((r) => r.role === 'peer');
  const judged = (x: (r: HttpRow) => number) =>
    (g.floor === undefined || x(sluice) >= g.floor) && peers.every((p) => x(sluice) > x(p));
  return {
    id: g.id,
    title: g.title,
    framework: g.framework,
    floor: g.floor ?? null,
    floorText: floorText(g),
    aim: { ratio: g.aim.ratio, us: g.aim.us ?? null },
    aimText: aimText(g),
    verdict: judged((r) => r.ratio!) ? 'PASS' : 'FAIL',
    cpuVerdict: judged((r) => r.cpuRatio!) ? 'PASS' : 'FAIL',
    aimMet: sluice.ratio! >= g.aim.ratio && (g.aim.us === undefined || sluice.deltaUs! <= g.aim.us),
    rows: [row(base), sluice, ...others],
  };
}

/** `--baselines`: [variant, label] measured beside the limiters of every selected case. */
const BASELINES: [Variant, string][] = [
  ['noop', 'baseline: no-op middleware'],
  ['headers', 'baseline: the 3 headers only'],
  ['sluice-bare', 'baseline: sluice, headers: false'],
];

function selectGroups(): Group[] {
  const all = args.baselines
    ? GROUPS.map((g) => ({ ...g, limited: [...g.limited, ...BASELINES] }))
    : GROUPS;
  const only = args.only?.split(',');
  if (only === undefined) return all;
  const known = new Set(GROUPS.flatMap((g) => [g.id, g.framework]));
  const unknown = only.filter((x) => !known.has(x));
  if (unknown.length > 0)
    throw new Error(`--only: no case ${unknown.join(', ')} (cases: ${[...known].join(', ')})`);
  return all.filter((g) => only.includes(g.id) || only.includes(g.framework));
}

async function main(groups: Group[], redis: RedisProcess | undefined): Promise<void> {
  const host = machine();
  const loadStart = os.loadavg();
  if (PIN) pin(process.pid, 0);
  // The redis-server shares core 0 with autocannon, apart from the server under test (core 1).
  if (PIN && redis !== undefined) pin(redis.pid, 0);
  const redisPinning = PIN
    ? 'pinned to core 0 with autocannon (taskset), apart from the server under test'
    : 'not pinned';
  const redisVersion = redis === undefined ? undefined : redisServerVersion();
  console.log(`machine: ${host.cores} cores, ${host.cpu}, Node ${host.node}, ${host.platform}`);
  const pinning = PIN
    ? 'server pinned to core 1 (taskset -c 1), autocannon in this process on core 0'
    : 'not pinned (no taskset or < 2 cores)';
  console.log(
    `${pinning}; ` +
      `autocannon ${CONNECTIONS} connections to 127.0.0.1, ${DURATION} s per measurement after a ${WARMUP} s warm-up, ` +
      `${ROUNDS} interleaved rounds (a new server process each round), medians` +
      (redis === undefined
        ? ''
        : `; redis-server ${redisVersion} on 127.0.0.1:${redis.port} (pid ${redis.pid}, started by this bench, ${redisPinning})`) +
      '\n',
  );

  const servers = new Map<string, Server>();
  const id = (f: Framework, v: Variant) => `${f}/${v}`;
  const wanted: [Framework, Variant, string][] = [];
  for (const g of groups) {
    for (const [v, label] of [[g.base, 'unlimited'] as [Variant, string], ...g.limited]) {
      if (!wanted.some(([f, w]) => f === g.framework && w === v))
        wanted.push([g.framework, v, label]);
    }
  }
  const order: Server[] = [];
  try {
    for (const [f, v, label] of wanted) {
      const s = await start(f, v, label, redis);
      servers.set(id(f, v), s);
      order.push(s);
    }
    for (const s of order) await probe(s);
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of order) {
        if (r > 0) await restart(s, redis);
        await load(s.port, WARMUP);
        await measure(s, redis);
      }
      process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
    }
  } finally {
    for (const s of order) s.child.kill();
  }

  const cases = groups.map((g) =>
    judge(
      g,
      servers.get(id(g.framework, g.base))!,
      g.limited.map(([v]) => servers.get(id(g.framework, v))!),
    ),
  );
  const t = plainTable([
    'case',
    'limiter',
    'req/s',
    'limited / unlimited',
    'CPU µs/req',
    'Δµs',
    'CPU ratio',
    'server busy',
    'floor',
    'aim',
    'verdict (req/s)',
    'verdict (CPU)',
  ]);
  for (const c of cases) {
    for (const [i, r] of c.rows.entries()) {
      const sluice = r.role === 'sluice';
      t.push([
        i === 0 ? c.title : '',
        r.limiter,
        Math.round(r.rps).toLocaleString('en-US'),
        r.ratio === null ? '-' : r.ratio.toFixed(3),
        r.cpuUs.toFixed(1),
        r.deltaUs === null ? '-' : `${r.deltaUs >= 0 ? '+' : ''}${r.deltaUs.toFixed(1)}`,
        r.cpuRatio === null ? '-' : r.cpuRatio.toFixed(3),
        `${(r.busy * 100).toFixed(0)}%`,
        sluice ? c.floorText : '',
        sluice ? c.aimText : '',
        sluice ? c.verdict : '',
        sluice ? c.cpuVerdict : '',
      ]);
    }
  }
  console.log(t.toString());
  console.log(
    'limited / unlimited, Δµs, CPU ratio: medians over rounds of (limited / unlimited req/s), (limited - unlimited CPU per request) and (unlimited / limited CPU per request), each pair measured in the same round; ' +
      'server busy: server CPU time / wall time (near 100%: the server, not autocannon, is the bottleneck; well under: the req/s ratio is unreliable, read the CPU ratio).',
  );
  console.log(`sluice: ${SLUICE_CONFIG}; peers: ${PEERS_CONFIG}.`);
  if (redis !== undefined) {
    // Shows that each Redis limiter did go to Redis, and how often (sluice coalesces).
    const perRequest = cases.flatMap((c) =>
      c.rows
        .filter((r) => r.redisCalls !== null)
        .map((r) => `${c.framework} ${r.limiter} ${r.redisCalls!.toFixed(3)}`),
    );
    console.log(
      `Redis: ${REDIS_CLIENT}; script calls per request (INFO commandstats EVAL/EVALSHA/FCALL delta / responses): ${perRequest.join(', ')}`,
    );
    const perCore = cases.flatMap((c) =>
      c.rows
        .filter((r) => r.redisCpuUs !== null)
        .map(
          (r) =>
            `${c.framework} ${r.limiter} ${r.redisCpuUs!.toFixed(2)} µs (${Math.round(1e6 / r.redisCpuUs!).toLocaleString('en-US')}/s)`,
        ),
    );
    console.log(
      `redis-server CPU per request (INFO cpu delta / responses), and the decisions/s one Redis core serves at that cost: ${perCore.join(', ')}`,
    );
  }
  console.log('first response of each server (status, rate-limit headers):');
  for (const s of order) console.log(`  ${s.framework} ${s.label}: ${s.probe}`);
  console.log('per-round req/s:');
  for (const s of order)
    console.log(
      `  ${s.framework} ${s.label}: ${s.rps.map((x) => Math.round(x)).join(' ')}  (µs/req ${s.cpuUs.map((x) => x.toFixed(1)).join(' ')})`,
    );
  const loadEnd = os.loadavg();
  console.log(
    `load average (1 min) at start ${loadStart[0]!.toFixed(2)}, at end ${loadEnd[0]!.toFixed(2)} (other work on this machine skews every figure)`,
  );
  const overall = {
    rps: cases.every((c) => c.verdict === 'PASS') ? 'PASS' : 'FAIL',
    cpu: cases.every((c) => c.cpuVerdict === 'PASS') ? 'PASS' : 'FAIL',
  } as const;
  console.log(`\noverall: ${overall.rps} on req/s ratios; ${overall.cpu} on CPU ratios`);
  if (args.json === undefined) return;
  const report: HttpReport = {
    kind: 'http',
    date: new Date().toISOString(),
    machine: host,
    config: {
      rounds: ROUNDS,
      duration: DURATION,
      warmup: WARMUP,
      connections: CONNECTIONS,
      pinned: PIN,
      pinning,
      sluice: SLUICE_CONFIG,
      peers: PEERS_CONFIG,
      redis:
        redis === undefined
          ? null
          : {
              version: redisVersion!,
              port: redis.port,
              client: REDIS_CLIENT,
              pinning: redisPinning,
            },
      loadStart,
      loadEnd,
    },
    cases,
    overall,
  };
  writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
}

const groups = selectGroups();
if (groups.some((g) => g.limited.some(([v]) => needsRedis(v))))
  await withRedis((redis) => main(groups, redis));
else await main(groups, undefined);
