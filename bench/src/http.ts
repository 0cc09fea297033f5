/**
 * `pnpm bench:http`: sluice's Express, Fastify and Koa adapters against each framework's
 * usual limiter, over real HTTP (DESIGN §8, the "memory" rows).
 *
 * Per framework, a hello-world route served by its own process pinned to one core
 * (`taskset -c 1`; this process, which runs autocannon, is pinned to core 0): unlimited,
 * limited by sluice (in-memory, never denies, keyed per IP), limited by the peer
 * (express-rate-limit / @fastify/rate-limit / koa-ratelimit with its memory store, never
 * denies, default headers). Plus Fastify with every request denied (429): sluice,
 * @fastify/rate-limit and rate-limiter-flexible. Servers are measured interleaved
 * (A B C A B C …) and the medians of the rounds reported: requests/s, the ratio
 * limited / unlimited (per round, then the median), and the server's CPU per request
 * (`process.cpuUsage()` delta / responses); Δµs = limiter CPU per request minus unlimited.
 * The CPU ratio (unlimited CPU per request / limited) is what the req/s ratio is when the
 * server is CPU-bound; it also holds when the client or a busy machine is the bottleneck
 * (server busy well under 100%), where the req/s ratio mostly measures noise.
 *
 * sluice runs from source (packages/<name>/src through tsx, the root tsconfig's paths), so
 * a change to the hot path is measured without a build.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Table from 'cli-table3';
import { median, scriptArgs } from './common.js';
import type { Framework, Variant } from './http/server.js';

const { values: args } = parseArgs({
  // `pnpm bench:http -- --rounds 5` passes the `--` through; drop it.
  args: scriptArgs(),
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
  },
});
const ROUNDS = Number(args.rounds);
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);

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
}

interface Group {
  title: string;
  framework: Framework;
  base: Variant;
  /** [variant, label] */
  limited: [Variant, string][];
  /** The minimum ratio sluice must reach (undefined: only "ahead of the peers"). */
  floor: number | undefined;
  aim: string;
}

const GROUPS: Group[] = [
  {
    title: 'Fastify, memory, allow',
    framework: 'fastify',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', '@fastify/rate-limit'],
    ],
    floor: 0.9,
    aim: '>= 0.95, <= +1 µs',
  },
  {
    title: 'Fastify, memory, all denied (429)',
    framework: 'fastify',
    base: 'none',
    limited: [
      ['sluice-deny', 'sluice'],
      ['peer-deny', '@fastify/rate-limit'],
      ['rlf-deny', 'rate-limiter-flexible'],
    ],
    floor: undefined,
    aim: '>= 0.95, <= +2 µs',
  },
  {
    title: 'Express, memory, allow',
    framework: 'express',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', 'express-rate-limit'],
    ],
    floor: 0.95,
    aim: '>= 0.97, <= +3 µs',
  },
  {
    title: 'Koa, memory, allow',
    framework: 'koa',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', 'koa-ratelimit'],
    ],
    floor: 0.95,
    aim: '>= 0.99',
  },
];

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const PIN = hasTaskset() && os.cpus().length >= 2;

function start(framework: Framework, variant: Variant, label: string): Promise<Server> {
  const node = [process.execPath, '--import', 'tsx', path.join(here, 'http/server.ts')];
  const [cmd, ...argv] = PIN ? ['taskset', '-c', '1', ...node] : node;
  const child = spawn(cmd!, [...argv, framework, variant], {
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
      });
    });
  });
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

async function measure(s: Server): Promise<void> {
  await ask(s.child, 'start');
  const shot = await load(s.port, DURATION);
  const us = await ask(s.child, 'stop');
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

async function main(): Promise<void> {
  const cpus = os.cpus();
  const load0 = os.loadavg()[0]!;
  if (PIN) execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  console.log(
    `machine: ${cpus.length} cores, ${cpus[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ${os.platform()} ${os.arch()}`,
  );
  console.log(
    `${PIN ? 'server pinned to core 1 (taskset -c 1), autocannon in this process on core 0' : 'not pinned (no taskset or < 2 cores)'}; ` +
      `autocannon ${CONNECTIONS} connections to 127.0.0.1, ${DURATION} s per measurement after a ${WARMUP} s warm-up, ` +
      `${ROUNDS} interleaved rounds, medians\n`,
  );

  const only = args.only?.split(',');
  const groups = GROUPS.filter((g) => only === undefined || only.includes(g.framework));
  const servers = new Map<string, Server>();
  const id = (f: Framework, v: Variant) => `${f}/${v}`;
  const wanted: [Framework, Variant, string][] = [];
  for (const g of groups) {
    for (const [v, label] of [[g.base, 'unlimited'] as [Variant, string], ...g.limited]) {
      if (!wanted.some(([f, w]) => f === g.framework && w === v))
        wanted.push([g.framework, v, label]);
    }
  }
  for (const [f, v, label] of wanted) servers.set(id(f, v), await start(f, v, label));
  const order = [...servers.values()];
  try {
    for (const s of order) {
      await probe(s);
      await load(s.port, WARMUP);
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of order) await measure(s);
      process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
    }
  } finally {
    for (const s of order) s.child.kill();
  }

  const t = new Table({
    style: { head: [], border: [] },
    head: [
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
    ],
  });
  let failed = false;
  let cpuFailed = false;
  for (const g of groups) {
    const base = servers.get(id(g.framework, g.base))!;
    const ratios = (s: Server) => median(s.rps.map((x, i) => x / base.rps[i]!));
    const delta = (s: Server) => median(s.cpuUs.map((x, i) => x - base.cpuUs[i]!));
    const cpuRatios = (s: Server) => median(s.cpuUs.map((x, i) => base.cpuUs[i]! / x));
    const limited = g.limited.map(([v]) => servers.get(id(g.framework, v))!);
    const sluice = limited[0]!;
    const sRatio = ratios(sluice);
    const peers = limited.slice(1);
    const ahead = peers.every((p) => sRatio > ratios(p));
    const pass = (g.floor === undefined || sRatio >= g.floor) && ahead;
    if (!pass) failed = true;
    const sCpu = cpuRatios(sluice);
    const cpuPass =
      (g.floor === undefined || sCpu >= g.floor) && peers.every((p) => sCpu > cpuRatios(p));
    if (!cpuPass) cpuFailed = true;
    const floor = `${g.floor === undefined ? '' : `>= ${g.floor.toFixed(2)}, `}ahead of peers`;
    const row = (s: Server, first: boolean, verdict: string, cpuVerdict: string) => [
      first ? g.title : '',
      s.variant === g.base ? 'unlimited' : s.label,
      Math.round(median(s.rps)).toLocaleString('en-US'),
      s === base ? '-' : ratios(s).toFixed(3),
      median(s.cpuUs).toFixed(1),
      s === base ? '-' : `${delta(s) >= 0 ? '+' : ''}${delta(s).toFixed(1)}`,
      s === base ? '-' : cpuRatios(s).toFixed(3),
      `${(median(s.busy) * 100).toFixed(0)}%`,
      s === sluice ? floor : '',
      s === sluice ? g.aim : '',
      verdict,
      cpuVerdict,
    ];
    t.push(row(base, true, '', ''));
    t.push(row(sluice, false, pass ? 'PASS' : 'FAIL', cpuPass ? 'PASS' : 'FAIL'));
    for (const p of peers) t.push(row(p, false, '', ''));
  }
  console.log(t.toString());
  console.log(
    'limited / unlimited, Δµs, CPU ratio: medians over rounds of (limited / unlimited req/s), (limited - unlimited CPU per request) and (unlimited / limited CPU per request), each pair measured in the same round; ' +
      'server busy: server CPU time / wall time (near 100%: the server, not autocannon, is the bottleneck; well under: the req/s ratio is unreliable, read the CPU ratio).',
  );
  console.log(
    "sluice: 'throttle:1000000000,1' (GCRA, never denies) / 'throttle:1,60' (denied rows), MemoryStore, keyed per IP, legacy X-RateLimit-* headers; " +
      'peers: express-rate-limit({ limit: 1e9 }), @fastify/rate-limit({ max: 1e9 } / { max: 1, timeWindow: 1 h }), ' +
      "koa-ratelimit({ driver: 'memory', db: new Map(), max: 1e9 }), rate-limiter-flexible RateLimiterMemory({ points: 1, duration: 3600 }) in an onRequest hook.",
  );
  console.log('first response of each server (status, rate-limit headers):');
  for (const s of order) console.log(`  ${s.framework} ${s.label}: ${s.probe}`);
  console.log('per-round req/s:');
  for (const s of order)
    console.log(
      `  ${s.framework} ${s.label}: ${s.rps.map((x) => Math.round(x)).join(' ')}  (µs/req ${s.cpuUs.map((x) => x.toFixed(1)).join(' ')})`,
    );
  console.log(
    `load average (1 min) at start ${load0.toFixed(2)}, at end ${os.loadavg()[0]!.toFixed(2)} (other work on this machine skews every figure)`,
  );
  console.log(
    `\noverall: ${failed ? 'FAIL' : 'PASS'} on req/s ratios; ${cpuFailed ? 'FAIL' : 'PASS'} on CPU ratios`,
  );
}

await main();
