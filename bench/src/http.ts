// `pnpm bench:http`: sluice's Express, Fastify, Koa and Nest adapters against each framework's usual
// limiter over real HTTP: servers pinned to core 1, a new process per round, interleaved, medians.
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import type { RedisProcess } from '@sluice/test-kit';
import autocannon from 'autocannon';
import type { Variant } from './cases/http-apps.js';
import {
  BASELINES,
  type Framework,
  GROUPS,
  type Group,
  needsRedis,
  PEERS_CONFIG,
  REDIS_CLIENT,
  SLUICE_CONFIG,
} from './cases/http-cases.js';
import { parseCommand, shared } from './cli/args.js';
import {
  askCpu,
  canPin,
  cliInfo,
  machine,
  median,
  pin,
  redisCpuUs,
  redisServerVersion,
  scriptCalls,
  spawnApp,
  stopChild,
  withRedis,
} from './measure/common.js';
import { finishPart } from './report/render.js';
import type { HttpCase, HttpReport, HttpRow } from './report/types.js';
import { judgeHttp, pass } from './report/verdicts.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench:http -- [options]',
  summary:
    "HTTP end to end: requests/s and server CPU per request of sluice's adapters against each framework's usual limiter, over real HTTP (autocannon).",
  options: {
    rounds: shared.rounds(5),
    duration: { type: 'number', default: 3, help: 'seconds per measurement' },
    warmup: { type: 'number', default: 1, help: 'seconds of warm-up (and 20k requests at least)' },
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
const { rounds: ROUNDS, duration: DURATION, warmup: WARMUP, connections: CONNECTIONS } = args;
const WARM_REQUESTS = 20_000;

/** One server: its process, and its figures per round. */
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

/** A case's rows from its servers' rounds: medians, and limited / unlimited per round. */
function caseOf(g: Group, server: (v: Variant) => Server): HttpCase {
  const [base, limited] = [server(g.base), g.limited.map(([v]) => server(v))];
  const perRound = (s: Server, f: (x: number, b: number) => number, xs: 'rps' | 'cpuUs') =>
    s[xs].map((x, i) => f(x, base[xs][i]!));
  const row = (s: Server): HttpRow => {
    const isBase = s === base;
    const ratioRounds = isBase ? null : perRound(s, (x, b) => x / b, 'rps');
    const baseline = BASELINES.some(([v]) => v === s.variant);
    return {
      limiter: isBase ? 'unlimited' : s.label,
      role: isBase ? 'unlimited' : s === limited[0] ? 'sluice' : baseline ? 'baseline' : 'peer',
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
  return { id: g.id, title: g.title, framework: g.framework, rows: [base, ...limited].map(row) };
}

const PIN = canPin();

async function start(
  framework: Framework,
  variant: Variant,
  label: string,
  redis: RedisProcess | undefined,
): Promise<Server> {
  const port = needsRedis(variant) ? redis!.port : undefined;
  const { child, port: at } = await spawnApp(framework, variant, port, { pinned: PIN });
  const figures = { rps: [], cpuUs: [], busy: [], redisCalls: [], redisCpuUs: [] };
  return { framework, variant, label, child, port: at, probe: '', ...figures };
}

/**
 * A new process for `s`, for the next round: some processes of one app stay slower for their whole
 * life (seen: 9.5 vs 12.6 µs per request), so a process per round lets the median see past it.
 */
async function restart(s: Server, redis: RedisProcess | undefined): Promise<void> {
  await stopChild(s.child);
  const fresh = await start(s.framework, s.variant, s.label, redis);
  s.child = fresh.child;
  s.port = fresh.port;
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

/** `seconds` of load, or `amount` requests when given. */
async function load(port: number, seconds: number, amount?: number): Promise<Shot> {
  const url = `http://127.0.0.1:${port}/`;
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, amount });
  const requests = r.requests.total;
  return {
    rps: requests / r.duration,
    requests,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    seconds: r.duration,
  };
}

async function measure(s: Server, redis: RedisProcess | undefined): Promise<void> {
  const viaRedis = redis !== undefined && needsRedis(s.variant) ? redis : undefined;
  const info = viaRedis && cliInfo(viaRedis);
  const calls0 = info && (await scriptCalls(info));
  const cpu0 = info && (await redisCpuUs(info));
  await askCpu(s.child, 'start');
  const shot = await load(s.port, DURATION);
  const us = await askCpu(s.child, 'stop');
  if (info !== undefined) {
    s.redisCalls.push(((await scriptCalls(info)) - calls0!) / shot.requests);
    s.redisCpuUs.push(((await redisCpuUs(info)) - cpu0!) / shot.requests);
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

function selectGroups(): Group[] {
  const all = args.baselines
    ? GROUPS.map((g) => {
        const more = BASELINES.filter(([v]) => !g.limited.some(([w]) => w === v));
        return { ...g, limited: [...g.limited, ...more] };
      })
    : GROUPS;
  const only = args.only?.split(',');
  if (only === undefined) return all;
  const known = new Set(GROUPS.flatMap((g) => [g.id, g.framework]));
  const unknown = only.filter((x) => !known.has(x));
  if (unknown.length > 0)
    throw new Error(`--only: no case ${unknown.join(', ')} (cases: ${[...known].join(', ')})`);
  return all.filter((g) => only.includes(g.id) || only.includes(g.framework));
}

const serverId = (f: Framework, v: Variant) => `${f}/${v}`;

/** Starts and probes every server, then `--rounds` rounds over all (a new process each round). */
async function runServers(groups: Group[], redis: RedisProcess | undefined) {
  const servers = new Map<string, Server>();
  try {
    for (const g of groups)
      for (const [v, label] of [[g.base, 'unlimited'] as [Variant, string], ...g.limited])
        if (!servers.has(serverId(g.framework, v)))
          servers.set(serverId(g.framework, v), await start(g.framework, v, label, redis));
    for (const s of servers.values()) await probe(s);
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of servers.values()) {
        if (r > 0) await restart(s, redis);
        // Warm for WARMUP s and at least WARM_REQUESTS requests: on a loaded machine a second
        // serves a few thousand, too few for the JIT to finish with a limiter of many functions.
        const warm = await load(s.port, WARMUP);
        if (warm.requests < WARM_REQUESTS) await load(s.port, 0, WARM_REQUESTS - warm.requests);
        await measure(s, redis);
      }
      process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
    }
  } finally {
    for (const s of servers.values()) s.child.kill();
  }
  return servers;
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
      `autocannon ${CONNECTIONS} connections to 127.0.0.1, ${DURATION} s per measurement after a ${WARMUP} s warm-up (20k requests at least), ` +
      `${ROUNDS} interleaved rounds (a new server process each round), medians` +
      (redis === undefined
        ? ''
        : `; redis-server ${redisVersion} on 127.0.0.1:${redis.port} (pid ${redis.pid}, started by this bench, ${redisPinning})`) +
      '\n',
  );

  const servers = await runServers(groups, redis);
  const cases = groups.map((g) => caseOf(g, (v) => servers.get(serverId(g.framework, v))!));
  console.log('first response of each server (status, rate-limit headers):');
  for (const s of servers.values()) console.log(`  ${s.framework} ${s.label}: ${s.probe}`);
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
      loadEnd: os.loadavg(),
    },
    cases,
  };
  // A failed verdict is reported, not an exit code: the HTTP rows are judged on two ratios.
  const verdicts = cases.map(judgeHttp);
  const rps = pass(verdicts.every((v) => v.verdict === 'PASS'));
  const cpu = pass(verdicts.every((v) => v.cpuVerdict === 'PASS'));
  finishPart('http', report, `${rps} on req/s ratios; ${cpu} on CPU ratios`, args.json);
}

const groups = selectGroups();
if (groups.some((g) => g.limited.some(([v]) => needsRedis(v))))
  await withRedis((redis) => main(groups, redis));
else await main(groups, undefined);
