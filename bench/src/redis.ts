/**
 * `pnpm bench:redis`: sluice's RedisStore against rate-limiter-flexible's RateLimiterRedis
 * on one `redis-server` this bench starts itself (free port, no persistence), in one run
 * (DESIGN §8, "Redis decisions/s, one client" and "Redis bytes per key" rows).
 *
 * Throughput: decisions/s through ONE ioredis connection per subject, with `--inflight`
 * consumes outstanding at all times (one async worker per slot, each awaiting its next
 * decision as soon as the previous one settles), spread round robin over `--keys` keys.
 * Subjects are measured interleaved (A B A' B' …) and the median of the rounds reported.
 * Ceiling: `redis-benchmark -P 16` running `EVALSHA` of sluice's GCRA script on random keys:
 * the most single-decision script calls the server itself can take.
 * Memory: `MEMORY USAGE` of one key written by each limiter.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { type Algorithm, gcra, RateLimiter } from '@sluice/core';
import { LUA_SOURCES, RedisStore } from '@sluice/redis';
import type { RedisProcess } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import {
  gcraAlgo,
  machine,
  measureRate,
  median,
  plainTable,
  RESIDENT_CONFIG,
  redisServerVersion,
  residentAlgo,
  scriptArgs,
  withRedis,
} from './common.js';
import { type OverLimitReport, overLimitSection } from './redis-over-limit.js';

const run = promisify(execFile);

const { values: args } = parseArgs({
  // `pnpm bench:redis -- --rounds 3` passes the `--` through; drop it.
  args: scriptArgs(),
  options: {
    rounds: { type: 'string', default: '5' },
    ms: { type: 'string', default: '2000' },
    keys: { type: 'string', default: '10000' },
    inflight: { type: 'string', default: '256' },
    /** Also write every figure, per-round values and the configuration as JSON to this file. */
    json: { type: 'string' },
    /** Add the scale section: decisions/s and used_memory per key at each of `--scale-keys`. */
    scale: { type: 'boolean', default: false },
    'scale-keys': { type: 'string', default: '1000,100000,1000000' },
    'scale-rounds': { type: 'string', default: '3' },
    'scale-ms': { type: 'string', default: '1000' },
    /** Skip the over-limit section (keys over their limit, with and without the cache). */
    'no-over-limit': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(args.rounds);
const MEASURE_MS = Number(args.ms);
const KEYS = Number(args.keys);
const INFLIGHT = Number(args.inflight);
const SCALE_KEYS = args['scale-keys'].split(',').map(Number);
const SCALE_ROUNDS = Number(args['scale-rounds']);
const SCALE_MS = Number(args['scale-ms']);
/** Calls outstanding while pre-filling the scale keys (sluice coalesces them into batches). */
const FILL_INFLIGHT = 1024;

/** The floor (DESIGN §8): sluice >= 1.5x RLF auto-pipelined. */
const FLOOR_VS_RLF = 1.5;
/** The aim: >= 70% of redis-benchmark's EVALSHA ceiling. */
const AIM_OF_CEILING = 0.7;
const MAX_KEY_BYTES = 100;
const AIM_KEY_BYTES = 56;

// ---------------------------------------------------------------------------------------
// The limiters under test. Every one of them is configured never to deny.

type Consume = (key: string) => Promise<unknown>;

interface Subject {
  label: string;
  client: Redis;
  consume: Consume;
  rates: number[];
}

function sluiceSubject(port: number, autoPipelining: boolean, algorithm = gcraAlgo()): Subject {
  const client = new Redis({ port, host: '127.0.0.1', enableAutoPipelining: autoPipelining });
  // onStoreError 'deny': a store failure shows up as a denial, which aborts the run.
  const limiter = new RateLimiter({
    algorithm,
    store: new RedisStore({ client }),
    onStoreError: 'deny',
  });
  return {
    label: `sluice RedisStore, GCRA${autoPipelining ? ', auto-pipelining' : ''}`,
    client,
    consume: async (key) => {
      const d = await limiter.consume(key);
      if (!d.allowed) throw new Error('sluice denied a request: the bench limits are wrong');
    },
    rates: [],
  };
}

function rlfSubject(port: number, autoPipelining: boolean): Subject {
  const client = new Redis({ port, host: '127.0.0.1', enableAutoPipelining: autoPipelining });
  // consume rejects when over the limit; it never is here, so a rejection aborts the run.
  const limiter = new RateLimiterRedis({
    storeClient: client,
    useRedisPackage: false,
    points: 1e12,
    duration: 60,
  });
  return {
    label: `rate-limiter-flexible RateLimiterRedis${autoPipelining ? ', auto-pipelining' : ''}`,
    client,
    consume: (key) => limiter.consume(key),
    rates: [],
  };
}

/** Decisions/s with `inflight` calls outstanding for `ms` (default `--inflight`). */
const measure = (consume: Consume, keys: string[], ms: number, inflight = INFLIGHT) =>
  measureRate(consume, keys, ms, inflight);

// ---------------------------------------------------------------------------------------
// Scale (--scale): decisions/s and server memory per key over 1k, 100k and 1M resident keys.

/** Consumes every key exactly once with `FILL_INFLIGHT` calls outstanding; returns seconds. */
async function fill(consume: Consume, keys: string[]): Promise<number> {
  let i = 0;
  const start = performance.now();
  const worker = async () => {
    while (i < keys.length) await consume(keys[i++]!);
  };
  const workers: Promise<void>[] = [];
  for (let w = 0; w < FILL_INFLIGHT; w++) workers.push(worker());
  await Promise.all(workers);
  return (performance.now() - start) / 1000;
}

async function usedMemory(client: Redis): Promise<number> {
  const info = await client.info('memory');
  const m = info.match(/^used_memory:(\d+)/m);
  if (m === null) throw new Error(`INFO memory has no used_memory:\n${info}`);
  return Number(m[1]);
}

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
  const s = sluiceSubject(port, true, residentAlgo());
  const r = rlfSubject(port, true);
  try {
    await Promise.all([s.client.ping(), r.client.ping()]);
    const used0 = await usedMemory(mem);
    const fillSluice = await fill(s.consume, keys);
    const used1 = await usedMemory(mem);
    const afterSluice = await mem.dbsize();
    if (afterSluice !== n) throw new Error(`scale ${n}: ${afterSluice} keys after sluice's fill`);
    const fillRlf = await fill(r.consume, keys);
    const used2 = await usedMemory(mem);
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
    ceiling: string;
  };
  throughput: {
    label: string;
    sluice: boolean;
    autoPipelining: boolean;
    rate: number;
    rounds: number[];
    vsRlfAuto: number;
    ofCeiling: number;
    verdict: string;
  }[];
  ceiling: { rate: number; rounds: number[] };
  memory: { label: string; key: string; bytes: number; verdict: string }[];
  /** Keys over their limit, with and without the over-limit cache (see redis-over-limit.ts). */
  overLimit?: OverLimitReport;
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

/** `redis-benchmark -P 16` on EVALSHA of sluice's GCRA script (server clock): requests/s. */
async function ceiling(server: RedisProcess, algorithm: Algorithm): Promise<number> {
  const sha = (await server.cli('SCRIPT', 'LOAD', LUA_SOURCES.gcra)).trim();
  const { stdout } = await run(
    'redis-benchmark',
    [
      ...['-h', '127.0.0.1', '-p', String(server.port), '-n', '200000', '-P', '16', '-q'],
      ...['-r', '10000', 'evalsha', sha, '1', '{ceiling:__rand_int__}', '', '1'],
      ...algorithm.params.map(String),
    ],
    { maxBuffer: 1 << 24 },
  );
  const all = [...stdout.matchAll(/([\d.]+) requests per second/g)];
  const last = all.at(-1);
  if (last === undefined) throw new Error(`redis-benchmark printed no rate:\n${stdout}`);
  return Number(last[1]);
}

const fmtRate = (x: number) => `${(x / 1e3).toFixed(1)} k/s`;

async function main(server: RedisProcess): Promise<boolean> {
  const host = machine();
  const version = redisServerVersion();
  console.log(
    `machine: ${host.cores} cores, ${host.cpu}, Node ${host.node}, redis-server ${version}, ${host.platform}`,
  );
  console.log(
    `throughput: median of ${ROUNDS} rounds, ~${MEASURE_MS} ms per measurement, subjects interleaved; one ioredis connection each, ${INFLIGHT} consumes in flight over ${KEYS} keys; redis-server on port ${server.port} (pid ${server.pid})\n`,
  );
  const report: RedisReport = {
    kind: 'redis',
    date: new Date().toISOString(),
    machine: { ...host, redis: version ?? '?' },
    config: {
      rounds: ROUNDS,
      ms: MEASURE_MS,
      keys: KEYS,
      inFlight: INFLIGHT,
      sluice:
        'RateLimiter + RedisStore({ client }) (server clock), gcra({ rate: 1e6, period: "1s", burst: 1e9 }), onStoreError: "deny"',
      rlf: 'rate-limiter-flexible RateLimiterRedis({ storeClient, useRedisPackage: false, points: 1e12, duration: 60 })',
      ceiling: `redis-benchmark -h 127.0.0.1 -n 200000 -P 16 -q -r 10000 evalsha <sha of sluice's gcra script> 1 {ceiling:__rand_int__} '' 1 ${gcraAlgo().params.join(' ')}`,
    },
    throughput: [],
    ceiling: { rate: 0, rounds: [] },
    memory: [],
    overall: 'PASS',
  };

  const keys = Array.from({ length: KEYS }, (_, i) => `user:${i}`);
  const subjects = [
    sluiceSubject(server.port, false),
    rlfSubject(server.port, false),
    sluiceSubject(server.port, true),
    rlfSubject(server.port, true),
  ];
  const [sPlain, , sAuto, rAuto] = subjects as [Subject, Subject, Subject, Subject];
  const ceilings: number[] = [];
  try {
    // Warm-up: JIT, script cache, every key written once; not measured.
    for (const s of subjects) await measure(s.consume, keys, Math.min(MEASURE_MS, 1000));
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of subjects) s.rates.push(await measure(s.consume, keys, MEASURE_MS));
      ceilings.push(await ceiling(server, gcraAlgo()));
      process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
    }
  } finally {
    for (const s of subjects) s.client.disconnect();
  }

  // --- bytes per key ---
  const mem = new Redis({ port: server.port, host: '127.0.0.1' });
  const memRows: [string, string, number][] = [];
  try {
    await mem.flushdb(); // our own server only
    const memKey = 'user:1';
    const sluiceKey = async (label: string, algorithm: Algorithm) => {
      const store = new RedisStore({ client: mem });
      const limiter = new RateLimiter({ algorithm, store, onStoreError: 'deny' });
      await limiter.consume(memKey);
      const redisKey = store.keyFor(`sluice:${memKey}`);
      memRows.push([label, redisKey, Number(await mem.memory('USAGE', redisKey))]);
    };
    await sluiceKey('sluice GCRA, bench limit (1e6/s: fractional TAT)', gcraAlgo());
    await sluiceKey('sluice GCRA, 100/min (whole-ms TAT)', gcra({ rate: 100, period: '1m' }));
    const rlf = new RateLimiterRedis({
      storeClient: mem,
      useRedisPackage: false,
      points: 1e12,
      duration: 60,
    });
    await rlf.consume(memKey);
    const rlfKey = `rlflx:${memKey}`;
    memRows.push([
      'rate-limiter-flexible RateLimiterRedis',
      rlfKey,
      Number(await mem.memory('USAGE', rlfKey)),
    ]);
  } finally {
    mem.disconnect();
  }

  // --- report ---
  const rlfAuto = median(rAuto.rates);
  const top = median(ceilings);
  let failed = false;
  const t = plainTable([
    'decisions/s (median)',
    'rate',
    '/ RLF auto-pipelined',
    'of EVALSHA ceiling',
    'verdict',
  ]);
  for (const s of subjects) {
    const rate = median(s.rates);
    const isSluice = s === sPlain || s === sAuto;
    const ratio = rate / rlfAuto;
    let verdict = '(info)';
    if (isSluice) {
      const pass = ratio >= FLOOR_VS_RLF;
      if (!pass) failed = true;
      verdict = `${pass ? 'PASS' : 'FAIL'} (>= ${FLOOR_VS_RLF}x); aim ${rate / top >= AIM_OF_CEILING ? 'met' : 'not met'} (>= ${AIM_OF_CEILING * 100}%)`;
    }
    report.throughput.push({
      label: s.label,
      sluice: isSluice,
      autoPipelining: s === sAuto || s === rAuto,
      rate,
      rounds: s.rates,
      vsRlfAuto: ratio,
      ofCeiling: rate / top,
      verdict,
    });
    t.push([
      s.label,
      fmtRate(rate),
      `${ratio.toFixed(2)}x`,
      `${((rate / top) * 100).toFixed(0)}%`,
      verdict,
    ]);
  }
  t.push([
    'ceiling: redis-benchmark -P 16, EVALSHA gcra (server clock), 10k random keys',
    fmtRate(top),
    '-',
    '100%',
    '(info)',
  ]);
  console.log(t.toString());
  console.log(
    'sluice: RateLimiter + RedisStore (server clock), gcra({ rate: 1e6, period: "1s", burst: 1e9 }); RLF: RateLimiterRedis({ points: 1e12, duration: 60, useRedisPackage: false }); both never deny.',
  );
  console.log(
    `per-round figures (k/s):\n${[
      ...subjects.map((s) => [s.label, s.rates] as const),
      ['ceiling', ceilings] as const,
    ]
      .map(([label, xs]) => `  ${label}: ${xs.map((x) => (x / 1e3).toFixed(1)).join(' ')}`)
      .join('\n')}\n`,
  );

  const m = plainTable(['MEMORY USAGE of one key', 'Redis key', 'bytes', 'target', 'verdict']);
  for (const [label, key, bytes] of memRows) {
    const isSluice = label.startsWith('sluice');
    let verdict = '(info)';
    if (isSluice) {
      const pass = bytes <= MAX_KEY_BYTES;
      if (!pass) failed = true;
      verdict = `${pass ? 'PASS' : 'FAIL'}; aim ${bytes <= AIM_KEY_BYTES ? 'met' : 'not met'}`;
    }
    report.memory.push({ label, key, bytes, verdict });
    m.push([
      label,
      key,
      `${bytes} B`,
      isSluice ? `<= ${MAX_KEY_BYTES} B (aim <= ${AIM_KEY_BYTES} B)` : '-',
      verdict,
    ]);
  }
  console.log(m.toString());
  report.ceiling = { rate: top, rounds: ceilings };

  if (!args['no-over-limit']) {
    console.log('');
    report.overLimit = await overLimitSection(server.port, ROUNDS, MEASURE_MS, INFLIGHT, KEYS);
  }

  if (args.scale) {
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
    if (!flatPass) failed = true;
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
  }

  console.log(`\noverall: ${failed ? 'FAIL' : 'PASS'}`);
  report.overall = failed ? 'FAIL' : 'PASS';
  if (args.json !== undefined) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  return !failed;
}

process.exitCode = (await withRedis(main)) ? 0 : 1;
