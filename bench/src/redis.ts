// `pnpm bench:redis`: sluice's RedisStore against its peers on a redis-server of its own: decisions/s
// on one connection, the server's ceiling, memory per key (measure/redis-memory.ts); `--cpu`: redis-cpu.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gcra } from '@sluice/core';
import { LUA_SOURCES } from '@sluice/redis';
import type { RedisProcess } from '@sluice/test-kit';
import { PEERS, RLF, sluice, subject } from './cases/redis-peers.js';
import { parseCommand, shared } from './cli/args.js';
import {
  GCRA_CONFIG,
  gcraAlgo,
  interleave,
  machine,
  measureRate,
  median,
  redisServerVersion,
  withRedis,
} from './measure/common.js';
import { cpuSection } from './measure/redis-cpu.js';
import { keyUsageSection } from './measure/redis-memory.js';
import { overLimitSection } from './measure/redis-over-limit.js';
import { scaleSection } from './measure/redis-scale.js';
import { finishPart } from './report/render.js';
import type { RedisReport } from './report/types.js';
import { pass, redisFailed } from './report/verdicts.js';

const run = promisify(execFile);

const { values: args } = parseCommand({
  usage: 'pnpm bench:redis -- [options]',
  summary:
    "Redis decisions: sluice's RedisStore against its peers on a redis-server of its own: decisions/s, the EVALSHA ceiling, bytes per key, keys over their limit.",
  options: {
    rounds: shared.rounds(5),
    ms: shared.ms(2000),
    keys: { type: 'number', default: 10000, help: 'keys, round robin' },
    inflight: { type: 'number', default: 256, help: 'consumes in flight' },
    json: shared.json,
    ...shared.scale('used_memory'),
    'scale-ms': { type: 'number', default: 1000, help: 'ms per scale measurement' },
    'peer-keys': {
      type: 'number',
      default: 100000,
      help: 'with --scale: used_memory per subject for sluice and every peer at this many subjects',
    },
    'no-over-limit': {
      type: 'boolean',
      help: 'skip the over-limit section (keys over their limit, with and without the cache)',
    },
    cpu: {
      type: 'boolean',
      help: "instead: where a decision's CPU goes, Node's and the server's (pnpm bench:redis-cpu)",
    },
    prefetch: {
      type: 'boolean',
      help: 'with --cpu: only the hot keys with and without RedisStore option `prefetch`',
    },
  },
});
const { rounds: ROUNDS, ms: MEASURE_MS, keys: KEYS, inflight: INFLIGHT } = args;
/** `--scale`'s rows. */
const SCALE = {
  keys: args['scale-keys'],
  rounds: args['scale-rounds'],
  ms: args['scale-ms'],
  inflight: INFLIGHT,
  peerKeys: args['peer-keys'],
};

/** sluice with the throughput limit (every decision advances the TAT, never denies). */
const SLUICE = sluice('sluice RedisStore, GCRA', gcraAlgo(), GCRA_CONFIG);

/** A script that does nothing: what any script call costs the server. */
const NOOP_SCRIPT = 'return 1';
const CEILING_ARGS = (sha: string) => [
  ...['-r', '10000', 'evalsha', sha, '1', '{ceiling:__rand_int__}', '', '1'],
  ...gcraAlgo().params.map(String),
];

/** `redis-benchmark -P 16` requests/s of EVALSHA `script` with one GCRA decision's arguments. */
async function ceiling(server: RedisProcess, script: string): Promise<number> {
  const sha = (await server.cli('SCRIPT', 'LOAD', script)).trim();
  const { stdout } = await run(
    'redis-benchmark',
    [
      ...['-h', '127.0.0.1', '-p', String(server.port), '-n', '200000', '-P', '16', '-q'],
      ...CEILING_ARGS(sha),
    ],
    { maxBuffer: 1 << 24 },
  );
  const all = [...stdout.matchAll(/([\d.]+) requests per second/g)];
  const last = all.at(-1);
  if (last === undefined) throw new Error(`redis-benchmark printed no rate:\n${stdout}`);
  return Number(last[1]);
}

/** The report before any figure: the run's configuration and targets. */
function newReport(host: ReturnType<typeof machine>, version: string): RedisReport {
  const benchmark = `redis-benchmark -h 127.0.0.1 -n 200000 -P 16 -q ${CEILING_ARGS('<sha>')
    .map((a) => (a === '' ? "''" : a))
    .join(' ')}`;
  return {
    kind: 'redis',
    date: new Date().toISOString(),
    machine: { ...host, redis: version ?? '?' },
    config: {
      rounds: ROUNDS,
      ms: MEASURE_MS,
      keys: KEYS,
      inFlight: INFLIGHT,
      sluice: SLUICE.config,
      rlf: RLF.config,
      peers: PEERS.map(({ label, config }) => ({ label, config })),
      ceiling: benchmark.replace('<sha>', "<sha of sluice's gcra script>"),
      noopCeiling: benchmark.replace('<sha>', `<sha of '${NOOP_SCRIPT}'>`),
    },
    throughput: [],
    ceiling: { rate: 0, rounds: [] },
    noopCeiling: { rate: 0, rounds: [] },
    memory: [],
  };
}

/** `MEMORY USAGE` of what one decision of each limiter writes (sluice's two limits, the peers). */
function keyUsage(port: number) {
  const perMinute = 'gcra({ rate: 100, period: "1m" })';
  return keyUsageSection(port, PEERS, [
    sluice('sluice GCRA, bench limit (1000/s: whole-ms T)', gcraAlgo(), GCRA_CONFIG),
    sluice('sluice GCRA, 100/min (whole-ms TAT)', gcra({ rate: 100, period: '1m' }), perMinute),
  ]);
}

/** Each subject on its own client, a warm-up, then `--rounds` rounds of each subject and ceiling. */
async function runRounds(server: RedisProcess) {
  const keys = Array.from({ length: KEYS }, (_, i) => `user:${i}`);
  const subjects = [
    await subject(server.port, SLUICE, false),
    await subject(server.port, RLF, false),
    await subject(server.port, SLUICE, true),
    await subject(server.port, RLF, true),
    await subject(server.port, SLUICE, false, 'iovalkey'),
    await subject(server.port, SLUICE, true, 'iovalkey'),
    await subject(server.port, SLUICE, false, 'node-redis 6'),
    await subject(server.port, SLUICE, false, 'valkey-glide'),
  ];
  const runs = [
    ...subjects.map((s) => () => measureRate(s.consume, keys, MEASURE_MS, INFLIGHT)),
    () => ceiling(server, LUA_SOURCES.gcra),
    () => ceiling(server, NOOP_SCRIPT),
  ];
  try {
    // Warm-up: JIT, script cache, every key written once; not measured.
    for (const s of subjects)
      await measureRate(s.consume, keys, Math.min(MEASURE_MS, 1000), INFLIGHT);
    const figures = await interleave(runs, ROUNDS, (run) => run());
    return { subjects, figures, judged: [subjects[0], subjects[2]] };
  } finally {
    for (const s of subjects) await s.close();
  }
}

async function main(server: RedisProcess): Promise<boolean> {
  const host = machine();
  const version = redisServerVersion();
  console.log(
    `machine: ${host.cores} cores, ${host.cpu}, Node ${host.node}, redis-server ${version}, ${host.platform}`,
  );
  console.log(
    `throughput: median of ${ROUNDS} rounds, ~${MEASURE_MS} ms per measurement, subjects interleaved; one ioredis connection each, ${INFLIGHT} consumes in flight over ${KEYS} keys; redis-server on port ${server.port} (pid ${server.pid})\n`,
  );
  const report = newReport(host, version);

  const { subjects, figures, judged } = await runRounds(server);
  const [ceilings, noopCeilings] = figures.slice(subjects.length) as [number[], number[]];
  report.throughput = subjects.map((s, i) => ({
    label: s.label,
    sluice: judged.includes(s),
    autoPipelining: s.label.endsWith('auto-pipelining'),
    rate: median(figures[i]!),
    rounds: figures[i]!,
  }));
  report.ceiling = { rate: median(ceilings), rounds: ceilings };
  report.noopCeiling = { rate: median(noopCeilings), rounds: noopCeilings };

  // --- bytes per key ---
  report.memory = await keyUsage(server.port);

  if (!args['no-over-limit']) {
    console.log('');
    report.overLimit = await overLimitSection(server.port, ROUNDS, MEASURE_MS, INFLIGHT, KEYS);
  }

  if (args.scale) await scaleSection(server, report, SCALE);

  const failed = redisFailed(report);
  finishPart('redis', report, pass(!failed), args.json);
  return !failed;
}

if (args.cpu) await withRedis((server) => cpuSection(server, { ...args, prefetch: args.prefetch }));
else process.exitCode = (await withRedis(main)) ? 0 : 1;
