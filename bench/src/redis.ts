/**
 * `pnpm bench:redis`: sluice's RedisStore against its peers on one `redis-server` this bench
 * starts itself (free port, no persistence), in one run ("Redis decisions/s, one
 * client" and "Redis bytes per key" rows).
 *
 * Throughput: sluice against rate-limiter-flexible's RateLimiterRedis, decisions/s through ONE
 * ioredis connection per subject, with and without ioredis `enableAutoPipelining`, with
 * `--inflight` consumes outstanding at all times (one async worker per slot, each awaiting its
 * next decision as soon as the previous one settles), spread round robin over `--keys` keys.
 * sluice also runs on iovalkey (plain and auto-pipelined) and node-redis 6 (which pipelines
 * every command of one tick by itself: no option), each row checked at >= 0.9x of sluice on
 * ioredis in the same mode.
 * Subjects are measured interleaved (A B A' B' …) and the median of the rounds reported.
 * Ceiling, once per round: `redis-benchmark -P 16` running `EVALSHA` of sluice's GCRA script on
 * random keys (the most single-decision script calls the server itself can take), and of a
 * script that only returns 1, with the same arguments (the server's cost of any script call).
 * Memory (./measure/redis-memory.ts): `MEMORY USAGE` of what one decision of each limiter writes; with
 * `--scale`, used_memory per subject at `--peer-keys` subjects for sluice and every peer of
 * ./cases/redis-peers.ts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gcra } from '@sluice/core';
import { LUA_SOURCES } from '@sluice/redis';
import type { RedisProcess } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { Redis as Valkey } from 'iovalkey';
import { createClient } from 'redis';
import { type Consume, PEERS, type RedisLimiter, RLF, sluice } from './cases/redis-peers.js';
import { parseCommand, shared } from './cli/args.js';
import {
  GCRA_CONFIG,
  gcraAlgo,
  machine,
  measureRate,
  median,
  plainTable,
  RESIDENT_CONFIG,
  redisServerVersion,
  residentAlgo,
  withRedis,
} from './measure/common.js';
import {
  FILL_INFLIGHT,
  fill,
  type KeyUsageRow,
  keyUsageSection,
  type PeerMemoryReport,
  peerMemorySection,
  settledUsedMemory,
  usedMemory,
} from './measure/redis-memory.js';
import { type OverLimitReport, overLimitSection } from './measure/redis-over-limit.js';
import { finishPart } from './report/part.js';

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
    scale: {
      type: 'boolean',
      help: 'add the scale section: decisions/s and used_memory per key at each of --scale-keys',
    },
    'scale-keys': { type: 'numbers', default: [1000, 100000, 1000000], help: 'key counts' },
    'scale-rounds': { type: 'number', default: 3, help: 'rounds per key count' },
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
  },
});
const ROUNDS = args.rounds;
const MEASURE_MS = args.ms;
const KEYS = args.keys;
const INFLIGHT = args.inflight;
const SCALE_KEYS = args['scale-keys'];
const SCALE_ROUNDS = args['scale-rounds'];
const SCALE_MS = args['scale-ms'];
const PEER_KEYS = args['peer-keys'];

/** The floor: sluice >= 1.5x RLF auto-pipelined. */
const FLOOR_VS_RLF = 1.5;
/** The issue's goal: >= 70% of redis-benchmark's EVALSHA ceiling in the same run. */
const MIN_OF_CEILING = 0.7;
/**
 * The issue's goal for the auto-pipelined row, "no slower than without": its median at least
 * this share of the plain one's. Both run the same path (the store writes its batches to the
 * connection itself, past ioredis's auto-pipeline), so what is left is noise: one subject's
 * rounds spread by up to 20% on this machine, their medians by up to 4%.
 */
const MIN_AUTO_OF_PLAIN = 0.95;
const MAX_KEY_BYTES = 100;
const AIM_KEY_BYTES = 56;

// ---------------------------------------------------------------------------------------
// The limiters under test (./cases/redis-peers.ts). Every one of them is configured never to deny.

const SLUICE_GCRA = GCRA_CONFIG;
/** sluice with the throughput limit (every decision advances the TAT, never denies). */
const SLUICE = sluice('sluice RedisStore, GCRA', gcraAlgo(), SLUICE_GCRA);
/** sluice at scale: every key stays stored for the run. */
const SLUICE_RESIDENT = sluice('sluice RedisStore, GCRA', residentAlgo(), RESIDENT_CONFIG);

interface Subject {
  label: string;
  client: { disconnect(): void; ping(): Promise<unknown> };
  consume: Consume;
  rates: number[];
  /** sluice on another client than ioredis: the ioredis row of the same mode it must keep up with. */
  sameModeAs?: Subject;
}

/** `limiter` on a client of its own (a rejection, e.g. RLF over its limit, aborts the run). */
function subject(port: number, limiter: RedisLimiter, autoPipelining: boolean): Subject {
  const client = new Redis({ port, host: '127.0.0.1', enableAutoPipelining: autoPipelining });
  return {
    label: `${limiter.label}${autoPipelining ? ', auto-pipelining' : ''}`,
    client,
    consume: limiter.consumer(client),
    rates: [],
  };
}

/** sluice on iovalkey (ioredis's fork: the same options). */
function valkeySubject(port: number, autoPipelining: boolean, ioredis: Subject): Subject {
  const client = new Valkey({ port, host: '127.0.0.1', enableAutoPipelining: autoPipelining });
  return {
    label: `${SLUICE.label}, iovalkey${autoPipelining ? ', auto-pipelining' : ''}`,
    client,
    consume: SLUICE.consumer(client as unknown as Redis),
    rates: [],
    sameModeAs: ioredis,
  };
}

/**
 * sluice on node-redis 6 (`createClient`): it has no auto-pipelining option, since it writes
 * every command of one tick in one socket write by itself.
 */
async function nodeRedisSubject(port: number, ioredis: Subject): Promise<Subject> {
  const client = createClient({ socket: { host: '127.0.0.1', port } });
  client.on('error', () => undefined);
  await client.connect();
  return {
    label: `${SLUICE.label}, node-redis 6`,
    client: { disconnect: () => client.destroy(), ping: () => client.ping() },
    consume: SLUICE.consumer(client as unknown as Redis),
    rates: [],
    sameModeAs: ioredis,
  };
}

/** Every other client's rate at least this share of ioredis's in the same mode. */
const MIN_OF_IOREDIS = 0.9;

/** Decisions/s with `inflight` calls outstanding for `ms` (default `--inflight`). */
const measure = (consume: Consume, keys: string[], ms: number, inflight = INFLIGHT) =>
  measureRate(consume, keys, ms, inflight);

// ---------------------------------------------------------------------------------------
// Scale (--scale): decisions/s and server memory per key over 1k, 100k and 1M resident keys.

interface ScaleRow {
  keys: number;
  sluice: number[];
  rlf: number[];
  /** used_memory delta per key after the fill, bytes. */
  memSluice: number;
  memRlf: number;
  /** Seconds to pre-fill the keys (each consumed once, FILL_INFLIGHT in flight). */
  fillSluice: number;
  fillRlf: number;
}

async function scaleAt(port: number, mem: Redis, n: number): Promise<ScaleRow> {
  const keys = Array.from({ length: n }, (_, i) => `user:${i}`);
  await mem.flushdb(); // our own server only
  const s = subject(port, SLUICE_RESIDENT, true);
  const r = subject(port, RLF, true);
  try {
    await Promise.all([s.client.ping(), r.client.ping()]);
    const used0 = await usedMemory(mem);
    const fillSluice = await fill(s.consume, keys);
    const used1 = await settledUsedMemory(mem);
    const afterSluice = await mem.dbsize();
    if (afterSluice !== n) throw new Error(`scale ${n}: ${afterSluice} keys after sluice's fill`);
    const fillRlf = await fill(r.consume, keys);
    const used2 = await settledUsedMemory(mem);
    const afterRlf = await mem.dbsize();
    if (afterRlf !== 2 * n) throw new Error(`scale ${n}: ${afterRlf} keys after RLF's fill`);
    for (let round = 0; round < SCALE_ROUNDS; round++) {
      s.rates.push(await measure(s.consume, keys, SCALE_MS));
      r.rates.push(await measure(r.consume, keys, SCALE_MS));
    }
    return {
      keys: n,
      sluice: s.rates,
      rlf: r.rates,
      memSluice: (used1 - used0) / n,
      memRlf: (used2 - used1) / n,
      fillSluice,
      fillRlf,
    };
  } finally {
    s.client.disconnect();
    r.client.disconnect();
  }
}

/** Flat: cost per decision at the most keys within 1.25x of that at the fewest (rate ratio >= 0.8). */
const FLAT_MIN_RATIO = 0.8;

/** The JSON written by `--json` (read by `pnpm bench`'s report). */
export interface RedisReport {
  kind: 'redis';
  date: string;
  machine: { cores: number; cpu: string; node: string; redis: string; platform: string };
  config: {
    rounds: number;
    ms: number;
    keys: number;
    inFlight: number;
    sluice: string;
    rlf: string;
    /** Every peer of the memory rows (RLF first), as configured. */
    peers: { label: string; config: string }[];
    ceiling: string;
    /** The second ceiling: the same call of a script that only returns 1. */
    noopCeiling: string;
    /** The judged figures: sluice / RLF auto-pipelined, of the ceiling, auto / plain. */
    targets: { vsRlfAuto: number; ofCeiling: number; autoOfPlain: number };
  };
  throughput: {
    label: string;
    sluice: boolean;
    autoPipelining: boolean;
    rate: number;
    rounds: number[];
    vsRlfAuto: number;
    ofCeiling: number;
    /** sluice auto-pipelined only: its median / sluice without auto-pipelining's. */
    ofPlain: number | null;
    verdict: string;
  }[];
  ceiling: { rate: number; rounds: number[] };
  noopCeiling: { rate: number; rounds: number[] };
  memory: KeyUsageRow[];
  /** Keys over their limit, with and without the over-limit cache (see redis-over-limit.ts). */
  overLimit?: OverLimitReport;
  /** used_memory per subject, sluice and every peer (`--scale`). */
  peerMemory?: PeerMemoryReport;
  scale?: {
    config: string;
    rounds: number;
    ms: number;
    fillInFlight: number;
    flatMinRatio: number;
    flatness: { sluice: number; rlf: number };
    verdict: string;
    rows: {
      keys: number;
      sluice: number;
      rlf: number;
      sluiceRounds: number[];
      rlfRounds: number[];
      memSluice: number;
      memRlf: number;
      fillSluice: number;
      fillRlf: number;
    }[];
  };
  overall: string;
}

// ---------------------------------------------------------------------------------------

/** A script that does nothing: what any script call costs the server. */
const NOOP_SCRIPT = 'return 1';
const CEILING_ARGS = (sha: string) => [
  ...['-r', '10000', 'evalsha', sha, '1', '{ceiling:__rand_int__}', '', '1'],
  ...gcraAlgo().params.map(String),
];

/**
 * `redis-benchmark -P 16` on EVALSHA of `script` with the arguments of one decision of sluice's
 * GCRA script (server clock) on random keys: requests/s.
 */
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

const fmtRate = (x: number) => `${(x / 1e3).toFixed(1)} k/s`;

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
      targets: {
        vsRlfAuto: FLOOR_VS_RLF,
        ofCeiling: MIN_OF_CEILING,
        autoOfPlain: MIN_AUTO_OF_PLAIN,
      },
    },
    throughput: [],
    ceiling: { rate: 0, rounds: [] },
    noopCeiling: { rate: 0, rounds: [] },
    memory: [],
    overall: 'PASS',
  };
}

/** `MEMORY USAGE` of what one decision of each limiter writes (sluice's two limits, the peers). */
function keyUsage(port: number) {
  return keyUsageSection(
    port,
    [
      {
        limiter: sluice('sluice GCRA, bench limit (1000/s: whole-ms T)', gcraAlgo(), SLUICE_GCRA),
        sluice: true,
      },
      {
        limiter: sluice(
          'sluice GCRA, 100/min (whole-ms TAT)',
          gcra({ rate: 100, period: '1m' }),
          'gcra({ rate: 100, period: "1m" })',
        ),
        sluice: true,
      },
      ...PEERS.map((limiter) => ({ limiter, sluice: false })),
    ],
    MAX_KEY_BYTES,
    AIM_KEY_BYTES,
  );
}

/**
 * `--scale`: decisions/s and used_memory per key at each of `--scale-keys`, then used_memory
 * per subject of sluice and every peer; whether both verdicts passed.
 */
async function scaleSection(server: RedisProcess, report: RedisReport): Promise<boolean> {
  const rows: ScaleRow[] = [];
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    for (const n of SCALE_KEYS) {
      rows.push(await scaleAt(server.port, client, n));
      process.stderr.write(`scale ${n} keys done\n`);
    }
    await client.flushdb(); // our own server only
  } finally {
    client.disconnect();
  }
  const st = plainTable([
    'scale: keys',
    'sluice decisions/s',
    'RLF decisions/s',
    'sluice / RLF',
    'sluice used_memory B/key',
    'RLF used_memory B/key',
    'fill s (sluice | RLF)',
  ]);
  for (const row of rows) {
    st.push([
      row.keys.toLocaleString('en-US'),
      fmtRate(median(row.sluice)),
      fmtRate(median(row.rlf)),
      `${(median(row.sluice) / median(row.rlf)).toFixed(2)}x`,
      `${row.memSluice.toFixed(1)} B`,
      `${row.memRlf.toFixed(1)} B`,
      `${row.fillSluice.toFixed(1)} | ${row.fillRlf.toFixed(1)}`,
    ]);
  }
  console.log(st.toString());
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const flatness = {
    sluice: median(last.sluice) / median(first.sluice),
    rlf: median(last.rlf) / median(first.rlf),
  };
  const flatPass = flatness.sluice >= FLAT_MIN_RATIO;
  console.log(
    `scale: sluice RedisStore ${RESIDENT_CONFIG} (T = 1 h: every key stays in Redis), RLF as above, both auto-pipelining; keys pre-filled by consuming each once with ${FILL_INFLIGHT} calls in flight (sluice coalesces them into batched EVALSHA); used_memory = INFO memory delta over the fill / keys; median of ${SCALE_ROUNDS} interleaved rounds of ~${SCALE_MS} ms, ${INFLIGHT} in flight over all keys round robin.`,
  );
  console.log(
    `flat (decisions/s at ${last.keys} keys / at ${first.keys} keys, >= ${FLAT_MIN_RATIO}): sluice ${flatness.sluice.toFixed(2)} ${flatPass ? 'PASS' : 'FAIL'}; RLF ${flatness.rlf.toFixed(2)} (info)`,
  );
  report.scale = {
    config: RESIDENT_CONFIG,
    rounds: SCALE_ROUNDS,
    ms: SCALE_MS,
    fillInFlight: FILL_INFLIGHT,
    flatMinRatio: FLAT_MIN_RATIO,
    flatness,
    verdict: flatPass ? 'PASS' : 'FAIL',
    rows: rows.map((r) => ({
      keys: r.keys,
      sluice: median(r.sluice),
      rlf: median(r.rlf),
      sluiceRounds: r.sluice,
      rlfRounds: r.rlf,
      memSluice: r.memSluice,
      memRlf: r.memRlf,
      fillSluice: r.fillSluice,
      fillRlf: r.fillRlf,
    })),
  };

  console.log('');
  report.peerMemory = await peerMemorySection(
    server.port,
    PEER_KEYS,
    [SLUICE_RESIDENT, ...PEERS],
    SCALE_ROUNDS,
  );
  return flatPass && report.peerMemory.verdict !== 'FAIL';
}

/**
 * Every throughput subject on a client of its own, an unmeasured warm-up, then `--rounds`
 * rounds: each subject in turn, then the two redis-benchmark ceilings.
 */
async function runRounds(server: RedisProcess) {
  const keys = Array.from({ length: KEYS }, (_, i) => `user:${i}`);
  const subjects = [
    subject(server.port, SLUICE, false),
    subject(server.port, RLF, false),
    subject(server.port, SLUICE, true),
    subject(server.port, RLF, true),
  ];
  const [sPlain, , sAuto, rAuto] = subjects as [Subject, Subject, Subject, Subject];
  subjects.push(
    valkeySubject(server.port, false, sPlain),
    valkeySubject(server.port, true, sAuto),
    await nodeRedisSubject(server.port, sPlain),
  );
  const ceilings: number[] = [];
  const noopCeilings: number[] = [];
  try {
    // Warm-up: JIT, script cache, every key written once; not measured.
    for (const s of subjects) await measure(s.consume, keys, Math.min(MEASURE_MS, 1000));
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of subjects) s.rates.push(await measure(s.consume, keys, MEASURE_MS));
      ceilings.push(await ceiling(server, LUA_SOURCES.gcra));
      noopCeilings.push(await ceiling(server, NOOP_SCRIPT));
      process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
    }
  } finally {
    for (const s of subjects) s.client.disconnect();
  }
  return { subjects, sPlain, sAuto, rAuto, ceilings, noopCeilings };
}

/** Every subject's and ceiling's rate in each round, k/s. */
function printRounds(subjects: Subject[], ceilings: number[], noopCeilings: number[]): void {
  console.log(
    `per-round figures (k/s):\n${[
      ...subjects.map((s) => [s.label, s.rates] as const),
      ['ceiling', ceilings] as const,
      [`'${NOOP_SCRIPT}' ceiling`, noopCeilings] as const,
    ]
      .map(([label, xs]) => `  ${label}: ${xs.map((x) => (x / 1e3).toFixed(1)).join(' ')}`)
      .join('\n')}\n`,
  );
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

  const { subjects, sPlain, sAuto, rAuto, ceilings, noopCeilings } = await runRounds(server);

  // --- decisions/s ---
  const rlfAuto = median(rAuto.rates);
  const plain = median(sPlain.rates);
  const top = median(ceilings);
  const noopTop = median(noopCeilings);
  let failed = false;
  const t = plainTable([
    'decisions/s (median)',
    'rate',
    '/ RLF auto-pipelined',
    'of EVALSHA ceiling',
    'auto / plain',
    'verdict',
  ]);
  for (const s of subjects) {
    const rate = median(s.rates);
    const isSluice = s === sPlain || s === sAuto;
    const ratio = rate / rlfAuto;
    const ofPlain = s === sAuto ? rate / plain : null;
    let verdict = '(info)';
    if (s.sameModeAs !== undefined) {
      const ofIoredis = rate / median(s.sameModeAs.rates);
      const pass = ofIoredis >= MIN_OF_IOREDIS;
      if (!pass) failed = true;
      verdict = `${pass ? 'PASS' : 'FAIL'} ${ofIoredis.toFixed(2)}x sluice on ioredis ${s.sameModeAs === sAuto ? 'auto-pipelined' : 'plain'} (>= ${MIN_OF_IOREDIS}x)`;
    } else if (isSluice) {
      const checks: [string, boolean][] = [
        [`>= ${FLOOR_VS_RLF}x RLF auto-pipelined`, ratio >= FLOOR_VS_RLF],
        [`>= ${MIN_OF_CEILING * 100}% of the ceiling`, rate / top >= MIN_OF_CEILING],
      ];
      if (ofPlain !== null)
        checks.push([
          `no slower than without (>= ${MIN_AUTO_OF_PLAIN}x)`,
          ofPlain >= MIN_AUTO_OF_PLAIN,
        ]);
      if (checks.some(([, pass]) => !pass)) failed = true;
      verdict = checks.map(([what, pass]) => `${pass ? 'PASS' : 'FAIL'} ${what}`).join('; ');
    }
    report.throughput.push({
      label: s.label,
      sluice: isSluice,
      autoPipelining: s.label.endsWith('auto-pipelining'),
      rate,
      rounds: s.rates,
      vsRlfAuto: ratio,
      ofCeiling: rate / top,
      ofPlain,
      verdict,
    });
    t.push([
      s.label,
      fmtRate(rate),
      `${ratio.toFixed(2)}x`,
      `${((rate / top) * 100).toFixed(0)}%`,
      ofPlain === null ? '-' : `${ofPlain.toFixed(2)}x`,
      verdict,
    ]);
  }
  t.push([
    'ceiling: redis-benchmark -P 16, EVALSHA gcra (server clock), 10k random keys',
    fmtRate(top),
    '-',
    '100%',
    '-',
    '(info)',
  ]);
  t.push([
    `redis-benchmark -P 16, EVALSHA '${NOOP_SCRIPT}', the same arguments`,
    fmtRate(noopTop),
    '-',
    `${((noopTop / top) * 100).toFixed(0)}%`,
    '-',
    '(info)',
  ]);
  console.log(t.toString());
  console.log(
    `sluice: ${SLUICE.config}; RLF: ${RLF.config}; both never deny. The GCRA script's own work on the server: ${(1e6 / top - 1e6 / noopTop).toFixed(2)} µs per call (1/ceiling - 1/'${NOOP_SCRIPT}' ceiling) of ${(1e6 / top).toFixed(2)} µs.`,
  );
  printRounds(subjects, ceilings, noopCeilings);
  report.ceiling = { rate: top, rounds: ceilings };
  report.noopCeiling = { rate: noopTop, rounds: noopCeilings };

  // --- bytes per key ---
  const usage = await keyUsage(server.port);
  report.memory = usage.rows;
  if (!usage.pass) failed = true;

  if (!args['no-over-limit']) {
    console.log('');
    report.overLimit = await overLimitSection(server.port, ROUNDS, MEASURE_MS, INFLIGHT, KEYS);
  }

  if (args.scale && !(await scaleSection(server, report))) failed = true;

  finishPart(report, failed, args.json);
  return !failed;
}

process.exitCode = (await withRedis(main)) ? 0 : 1;
