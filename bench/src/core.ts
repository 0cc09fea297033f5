/**
 * `pnpm bench:core`: sluice's core (RateLimiter + MemoryStore) against
 * rate-limiter-flexible's RateLimiterMemory, in one run ("core, memory store"
 * and "heap per key" rows).
 *
 * Throughput: decisions/s, awaited one at a time and with 256 calls in flight, over 1 key and over
 * 100 000 pre-built keys taken round robin; sluice and RLF measured interleaved
 * (A B A B …) and the median of the rounds reported. Memory: heap bytes per key after
 * inserting 100 000 keys and a full GC (node --expose-gc).
 *
 * Then sluice against every peer's in-memory store (rate-limiter-flexible, express-rate-limit,
 * @fastify/rate-limit, koa-ratelimit) in the same run: see core-peers.ts.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { type Decision, fixedWindow, MemoryStore, RateLimiter } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import {
  GCRA_CONFIG,
  gcraAlgo,
  machine,
  median,
  plainTable,
  RESIDENT_CONFIG,
  residentAlgo,
  scriptArgs,
} from './measure/common.js';
import {
  BATCH,
  check,
  heapDelta,
  loopLimiter,
  loopRlf,
  makeKeys,
  userKeys,
} from './measure/core-loops.js';
import { type PeersReport, runPeers } from './measure/core-peers.js';

const { values: args } = parseArgs({
  // `pnpm bench:core -- --rounds 3` passes the `--` through; drop it.
  args: scriptArgs(),
  options: {
    rounds: { type: 'string', default: '5' },
    ms: { type: 'string', default: '600' },
    keys: { type: 'string', default: '100000' },
    /** Also write every figure, per-round values and the configuration as JSON to this file. */
    json: { type: 'string' },
    /** Add the scale section: decisions/s and heap bytes per key at each of `--scale-keys`. */
    scale: { type: 'boolean', default: false },
    'scale-keys': { type: 'string', default: '1000,100000,1000000' },
    'scale-rounds': { type: 'string', default: '3' },
    /** Key counts of the every-peer heap rows (heap per key incl. key text). */
    'peer-heap-keys': { type: 'string', default: '100000,1000000' },
    /**
     * Only the every-peer section: `pnpm bench` runs it so, in a process of its own, so that
     * what the other sections ran (fixed windows, other stores) leaves no trace in the JIT
     * state of the subjects it compares.
     */
    'peers-only': { type: 'boolean', default: false },
    /** Skip the every-peer section (`pnpm bench` runs it in its own process). */
    'no-peers': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(args.rounds);
const MEASURE_MS = Number(args.ms);
const MANY = Number(args.keys);
const SCALE_KEYS = args['scale-keys'].split(',').map(Number);
const SCALE_ROUNDS = Number(args['scale-rounds']);
const PEER_HEAP_KEYS = args['peer-heap-keys'].split(',').map(Number);
const PEERS_ONLY = args['peers-only'];
const NO_PEERS = args['no-peers'];

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  console.error('bench:core needs node --expose-gc (use `pnpm bench:core`)');
  process.exit(1);
}

// ---------------------------------------------------------------------------------------
// The limiters under test. Every one of them is configured never to deny.

/** A fixed window of 60 s (RLF's `duration: 60`) with a limit we never reach. */
const fixedAlgo = (): Algorithm => fixedWindow({ limit: 1e12, window: '60s' });
const sluice = (algorithm: Algorithm) =>
  new RateLimiter({ algorithm, store: new MemoryStore({ maxKeys: MANY }) });
const rlf = (keyPrefix = 'rlflx') =>
  new RateLimiterMemory({ points: 1e12, duration: 60, keyPrefix });

// ---------------------------------------------------------------------------------------
// Measurement loops: one per API so every call site stays monomorphic.

/** How many calls the concurrent loops keep in flight (a busy server's overlapping requests). */
const IN_FLIGHT = 256;

async function loopLimiterConcurrent(
  limiter: RateLimiter,
  keys: string[],
  ms: number,
): Promise<number> {
  const n = keys.length;
  let i = 0;
  let ops = 0;
  const start = performance.now();
  let now = start;
  const pending: Promise<Decision>[] = new Array(IN_FLIGHT);
  do {
    for (let b = 0; b < BATCH / IN_FLIGHT; b++) {
      for (let j = 0; j < IN_FLIGHT; j++) {
        pending[j] = limiter.consume(keys[i]!);
        if (++i === n) i = 0;
      }
      for (const d of await Promise.all(pending)) check(d);
    }
    ops += BATCH;
    now = performance.now();
  } while (now - start < ms);
  return (ops * 1000) / (now - start);
}

async function loopRlfConcurrent(
  limiter: RateLimiterMemory,
  keys: string[],
  ms: number,
): Promise<number> {
  const n = keys.length;
  let i = 0;
  let ops = 0;
  const start = performance.now();
  let now = start;
  const pending: Promise<unknown>[] = new Array(IN_FLIGHT);
  do {
    for (let b = 0; b < BATCH / IN_FLIGHT; b++) {
      for (let j = 0; j < IN_FLIGHT; j++) {
        pending[j] = limiter.consume(keys[i]!);
        if (++i === n) i = 0;
      }
      await Promise.all(pending);
    }
    ops += BATCH;
    now = performance.now();
  } while (now - start < ms);
  return (ops * 1000) / (now - start);
}

/**
 * The ceiling of any limiter whose `consume` returns a promise, awaited one call at a time:
 * `await` of an already-resolved promise of a constant decision, nothing else.
 */
async function loopAwaitFloor(ms: number): Promise<number> {
  const decision: Decision = {
    allowed: true,
    limit: 1,
    remaining: 1,
    retryAfterMs: 0,
    resetAfterMs: 0,
    cost: 1,
  };
  let ops = 0;
  const start = performance.now();
  let now = start;
  do {
    for (let j = 0; j < BATCH; j++) check(await Promise.resolve(decision));
    ops += BATCH;
    now = performance.now();
  } while (now - start < ms);
  return (ops * 1000) / (now - start);
}

// The synchronous store path, deliberately not async: no promise per decision.
function loopStore(store: MemoryStore, algorithm: Algorithm, keys: string[], ms: number): number {
  const n = keys.length;
  let i = 0;
  let ops = 0;
  const start = performance.now();
  let now = start;
  do {
    for (let j = 0; j < BATCH; j++) {
      check(store.consume(keys[i]!, algorithm, 1, Date.now()));
      if (++i === n) i = 0;
    }
    ops += BATCH;
    now = performance.now();
  } while (now - start < ms);
  return (ops * 1000) / (now - start);
}

// ---------------------------------------------------------------------------------------
// Heap bytes per key.

interface HeapSubject {
  /** Store overhead only: keys are pre-built, retained outside, and stored as given. */
  overhead: (keys: string[]) => Promise<unknown>;
  /** Keys built during insertion and retained only by the limiter (key text included). */
  withKeys: (n: number) => Promise<unknown>;
}

const heapSubjects: Record<string, HeapSubject> = {
  'sluice GCRA': {
    async overhead(keys) {
      // The store is what keeps the state; it is handed the very key strings we retain.
      const store = new MemoryStore({ maxKeys: keys.length });
      const algorithm = gcraAlgo();
      for (const key of keys) store.consume(key, algorithm, 1, Date.now());
      return store;
    },
    async withKeys(n) {
      const limiter = sluice(gcraAlgo());
      for (let i = 0; i < n; i++) await limiter.consume(`user:${i}`);
      return limiter;
    },
  },
  'sluice fixed window': {
    async overhead(keys) {
      const store = new MemoryStore({ maxKeys: keys.length });
      const algorithm = fixedAlgo();
      for (const key of keys) store.consume(key, algorithm, 1, Date.now());
      return store;
    },
    async withKeys(n) {
      const limiter = sluice(fixedAlgo());
      for (let i = 0; i < n; i++) await limiter.consume(`user:${i}`);
      return limiter;
    },
  },
  'rate-limiter-flexible': {
    async overhead(keys) {
      // keyPrefix '' so RLF stores the given key strings themselves.
      const limiter = rlf('');
      for (const key of keys) await limiter.consume(key);
      return limiter;
    },
    async withKeys(n) {
      const limiter = rlf();
      for (let i = 0; i < n; i++) await limiter.consume(`user:${i}`);
      return limiter;
    },
  },
};

/** Module-level holder: keys that must outlive a store overhead measure are kept here. */
let retainedKeys: string[] = [];

async function heapPerKey(subject: HeapSubject, n: number): Promise<[number, number]> {
  // Store overhead: the keys exist (and stay alive) before the baseline.
  retainedKeys = makeKeys(n);
  const overhead = await heapDelta(
    () => subject.overhead(retainedKeys),
    n,
    (built) => releaseRlf(built, retainedKeys),
  );
  retainedKeys = [];
  // Key text included: keys are built during insertion and held only by the limiter.
  const withKeys = await heapDelta(
    () => subject.withKeys(n),
    n,
    (built) => releaseRlf(built, userKeys(n)),
  );
  return [overhead, withKeys];
}

/**
 * RLF keeps each key's state alive for 60 s through a timer of its own: deleting the keys
 * clears the timers, so a measured store is freed now, not during a later measure.
 */
async function releaseRlf(built: unknown, keys: Iterable<string>): Promise<void> {
  if (built instanceof RateLimiterMemory) for (const key of keys) await built.delete(key);
}

// ---------------------------------------------------------------------------------------
// Scale (--scale): the same awaited decision over 1k, 100k and 1M resident keys.

interface ScaleRow {
  keys: number;
  /** RateLimiter + MemoryStore({ maxKeys: keys }), awaited one at a time. */
  sluice: number[];
  /** rate-limiter-flexible RateLimiterMemory, awaited one at a time. */
  rlf: number[];
  /** MemoryStore.consume, synchronous (the store alone). */
  store: number[];
  /** Heap bytes per key, store overhead (keys pre-built and retained outside). */
  heapSluice: number;
  heapRlf: number;
  /** Live keys in the store after the run: must equal `keys`. */
  liveKeys: number;
}

async function scaleAt(n: number): Promise<ScaleRow> {
  retainedKeys = makeKeys(n);
  const heapSluice = await heapDelta(async () => {
    const store = new MemoryStore({ maxKeys: n });
    const algorithm = residentAlgo();
    for (const key of retainedKeys) store.consume(key, algorithm, 1, Date.now());
    return store;
  }, n);
  const heapRlf = await heapDelta(
    async () => {
      const limiter = rlf('');
      for (const key of retainedKeys) await limiter.consume(key);
      return limiter;
    },
    n,
    (built) => releaseRlf(built, retainedKeys),
  );
  const keys = retainedKeys;
  retainedKeys = [];

  const limiter = new RateLimiter({
    algorithm: residentAlgo(),
    store: new MemoryStore({ maxKeys: n }),
  });
  const peer = rlf();
  const store = new MemoryStore({ maxKeys: n });
  const algorithm = residentAlgo();
  // Fill: every key once in each subject, not measured (also the JIT warm-up).
  for (const key of keys) {
    check(await limiter.consume(key));
    await peer.consume(key);
    check(store.consume(key, algorithm, 1, Date.now()));
  }
  const row: ScaleRow = {
    keys: n,
    sluice: [],
    rlf: [],
    store: [],
    heapSluice,
    heapRlf,
    liveKeys: 0,
  };
  for (let r = 0; r < SCALE_ROUNDS; r++) {
    row.sluice.push(await loopLimiter(limiter, keys, MEASURE_MS));
    row.rlf.push(await loopRlf(peer, keys, MEASURE_MS));
    row.store.push(loopStore(store, algorithm, keys, MEASURE_MS));
  }
  row.liveKeys = store.size;
  if (row.liveKeys !== n) throw new Error(`scale ${n}: ${row.liveKeys} live keys, expected ${n}`);
  return row;
}

/** Flat: cost per decision at the most keys within 1.25x of that at the fewest (rate ratio >= 0.8). */
const FLAT_MIN_RATIO = 0.8;

// ---------------------------------------------------------------------------------------

const fmtRate = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;

/** The JSON written by `--json` (read by `pnpm bench`'s report). */
export interface CoreReport {
  kind: 'core';
  date: string;
  machine: { cores: number; cpu: string; node: string; platform: string };
  config: {
    rounds: number;
    ms: number;
    keys: number;
    inFlight: number;
    sluice: string;
    rlf: string;
  };
  /** Decisions/s, medians (sluice, rlf) and every round. */
  throughput: {
    label: string;
    sluice: number;
    rlf: number;
    ratio: number;
    target: number | undefined;
    verdict: string;
    sluiceRounds: number[];
    rlfRounds: number[];
  }[];
  heap: {
    name: string;
    keys: number;
    overhead: number;
    withKeys: number;
    target: number | undefined;
    verdict: string;
  }[];
  scale?: {
    config: string;
    rounds: number;
    flatMinRatio: number;
    flatness: { sluice: number; rlf: number; store: number };
    verdict: string;
    rows: {
      keys: number;
      sluice: number;
      rlf: number;
      store: number;
      sluiceRounds: number[];
      rlfRounds: number[];
      storeRounds: number[];
      heapSluice: number;
      heapRlf: number;
      liveKeys: number;
    }[];
  };
  /** sluice vs every peer's in-memory store (core-peers.ts); absent in older results. */
  peers?: PeersReport;
  overall: string;
}

interface Case {
  label: string;
  /** Sluice's side, async limiter or sync store. */
  a: () => Promise<number> | number;
  /** RLF's side, or undefined to reuse the RLF figure of another case. */
  b: () => Promise<number>;
  target: number | undefined;
  a_: number[];
  b_: number[];
}

async function main(): Promise<void> {
  const host = machine();
  const report: CoreReport = {
    kind: 'core',
    date: new Date().toISOString(),
    machine: host,
    config: {
      rounds: ROUNDS,
      ms: MEASURE_MS,
      keys: MANY,
      inFlight: IN_FLIGHT,
      sluice: `RateLimiter + MemoryStore({ maxKeys: keys }), ${GCRA_CONFIG} / fixedWindow({ limit: 1e12, window: "60s" })`,
      rlf: 'rate-limiter-flexible RateLimiterMemory({ points: 1e12, duration: 60 })',
    },
    throughput: [],
    heap: [],
    overall: 'PASS',
  };
  console.log(`machine: ${host.cores} cores, ${host.cpu}, Node ${host.node}, ${host.platform}`);
  console.log(
    `throughput: median of ${ROUNDS} rounds, ~${MEASURE_MS} ms per measurement, sluice and RLF interleaved; rows without "in flight" await each decision one at a time, "256 in flight" rows keep 256 calls outstanding (Promise.all per 256)\n`,
  );

  // --- heap first, on a clean heap ---
  const heapRows: [string, number, number][] = [];
  if (!PEERS_ONLY)
    for (const [name, subject] of Object.entries(heapSubjects)) {
      const [overhead, withKeys] = await heapPerKey(subject, MANY);
      heapRows.push([name, overhead, withKeys]);
    }

  // --- sluice vs every peer (heap with key text, then awaited decisions/s) ---
  if (!NO_PEERS) {
    report.peers = await runPeers({
      rounds: ROUNDS,
      ms: MEASURE_MS,
      keys: MANY,
      heapKeys: PEER_HEAP_KEYS,
    });
  }
  let failed = report.peers?.rows.some((r) => r.verdict === 'FAIL') ?? false;
  if (PEERS_ONLY) return finish();

  // --- throughput ---
  const one = ['user:42'];
  const many = makeKeys(MANY);
  const sG1 = sluice(gcraAlgo());
  const sGn = sluice(gcraAlgo());
  const sF1 = sluice(fixedAlgo());
  const sFn = sluice(fixedAlgo());
  const r1 = rlf();
  const rn = rlf();
  const rawStore1 = new MemoryStore({ maxKeys: MANY });
  const rawStoreN = new MemoryStore({ maxKeys: MANY });
  const gAlg = gcraAlgo();
  const fAlg = fixedAlgo();
  const rawFixed1 = new MemoryStore({ maxKeys: MANY });
  const rawFixedN = new MemoryStore({ maxKeys: MANY });
  const cases: Case[] = [
    mk(
      'RateLimiter.consume (awaited): GCRA, 1 key',
      () => loopLimiter(sG1, one, MEASURE_MS),
      () => loopRlf(r1, one, MEASURE_MS),
      undefined,
    ),
    mk(
      'RateLimiter.consume (awaited): GCRA, 100k keys',
      () => loopLimiter(sGn, many, MEASURE_MS),
      () => loopRlf(rn, many, MEASURE_MS),
      undefined,
    ),
    mk(
      'RateLimiter.consume (awaited): fixed window, 1 key',
      () => loopLimiter(sF1, one, MEASURE_MS),
      () => loopRlf(r1, one, MEASURE_MS),
      undefined,
    ),
    mk(
      'RateLimiter.consume (awaited): fixed window, 100k keys',
      () => loopLimiter(sFn, many, MEASURE_MS),
      () => loopRlf(rn, many, MEASURE_MS),
      undefined,
    ),
    mk(
      'RateLimiter.consume (awaited): GCRA, 1 key, 256 in flight',
      () => loopLimiterConcurrent(sG1, one, MEASURE_MS),
      () => loopRlfConcurrent(r1, one, MEASURE_MS),
      undefined,
    ),
    mk(
      'RateLimiter.consume (awaited): GCRA, 100k keys, 256 in flight',
      () => loopLimiterConcurrent(sGn, many, MEASURE_MS),
      () => loopRlfConcurrent(rn, many, MEASURE_MS),
      undefined,
    ),
    mk(
      'RateLimiter.consume (awaited): fixed window, 1 key, 256 in flight',
      () => loopLimiterConcurrent(sF1, one, MEASURE_MS),
      () => loopRlfConcurrent(r1, one, MEASURE_MS),
      undefined,
    ),
    mk(
      'RateLimiter.consume (awaited): fixed window, 100k keys, 256 in flight',
      () => loopLimiterConcurrent(sFn, many, MEASURE_MS),
      () => loopRlfConcurrent(rn, many, MEASURE_MS),
      undefined,
    ),
    mk(
      'extra: await floor (await of a constant; no limiter), vs RLF 1 key',
      () => loopAwaitFloor(MEASURE_MS),
      () => loopRlf(r1, one, MEASURE_MS),
      undefined,
    ),
    mk(
      'MemoryStore (store.consume, its own API): GCRA, 1 key',
      () => loopStore(rawStore1, gAlg, one, MEASURE_MS),
      () => loopRlf(r1, one, MEASURE_MS),
      2,
    ),
    mk(
      'MemoryStore (store.consume, its own API): GCRA, 100k keys',
      () => loopStore(rawStoreN, gAlg, many, MEASURE_MS),
      () => loopRlf(rn, many, MEASURE_MS),
      2,
    ),
    mk(
      'MemoryStore (store.consume, its own API): fixed window, 1 key',
      () => loopStore(rawFixed1, fAlg, one, MEASURE_MS),
      () => loopRlf(r1, one, MEASURE_MS),
      2,
    ),
    mk(
      'MemoryStore (store.consume, its own API): fixed window, 100k keys',
      () => loopStore(rawFixedN, fAlg, many, MEASURE_MS),
      () => loopRlf(rn, many, MEASURE_MS),
      2,
    ),
  ];
  if (MANY !== 100_000) for (const c of cases) c.label = c.label.replace('100k', `${MANY}`);

  // Warm-up: JIT and fill every store with its keys, not measured.
  for (const c of cases) {
    await c.a();
    await c.b();
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of cases) {
      c.a_.push(await c.a());
      c.b_.push(await c.b());
    }
    process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
  }

  const t = plainTable([
    'decisions/s (median)',
    'sluice',
    'RLF',
    'sluice / RLF',
    'target',
    'verdict',
  ]);
  for (const c of cases) {
    const a = median(c.a_);
    const b = median(c.b_);
    const ratio = a / b;
    const pass = c.target === undefined ? '(info)' : ratio >= c.target ? 'PASS' : 'FAIL';
    if (pass === 'FAIL') failed = true;
    report.throughput.push({
      label: c.label,
      sluice: a,
      rlf: b,
      ratio,
      target: c.target,
      verdict: pass,
      sluiceRounds: c.a_,
      rlfRounds: c.b_,
    });
    t.push([
      c.label,
      fmtRate(a),
      fmtRate(b),
      `${ratio.toFixed(2)}x`,
      c.target === undefined ? '-' : `>= ${c.target}x RLF`,
      pass,
    ]);
  }
  console.log(t.toString());
  console.log(
    `sluice: RateLimiter + MemoryStore, ${GCRA_CONFIG} / fixedWindow({ limit: 1e12, window: "60s" });`,
  );
  console.log(
    'RLF: rate-limiter-flexible RateLimiterMemory({ points: 1e12, duration: 60 }) in every row.',
  );
  console.log(
    `per-round figures (M/s) sluice | RLF:\n${cases
      .map(
        (c) =>
          `  ${c.label}: ${c.a_.map((x) => (x / 1e6).toFixed(2)).join(' ')} | ${c.b_.map((x) => (x / 1e6).toFixed(2)).join(' ')}`,
      )
      .join('\n')}\n`,
  );

  const h = plainTable([
    `heap bytes per key (${MANY} keys)`,
    'store overhead (keys pre-built, retained outside)',
    'incl. key text (keys built on insert, held only by the store)',
    'vs RLF (overhead)',
    'target',
    'verdict',
  ]);
  const rlfOverhead = heapRows.find(([n]) => n === 'rate-limiter-flexible')![1];
  for (const [name, overhead, withKeys] of heapRows) {
    const isGcra = name === 'sluice GCRA';
    const verdict = isGcra ? (overhead <= 100 ? 'PASS' : 'FAIL') : '(info)';
    if (verdict === 'FAIL') failed = true;
    report.heap.push({
      name,
      keys: MANY,
      overhead,
      withKeys,
      target: isGcra ? 100 : undefined,
      verdict,
    });
    h.push([
      name,
      `${overhead.toFixed(1)} B`,
      `${withKeys.toFixed(1)} B`,
      name === 'rate-limiter-flexible' ? '-' : `${(overhead / rlfOverhead).toFixed(2)}x`,
      isGcra ? '<= 100 B' : '-',
      verdict,
    ]);
  }
  console.log(h.toString());
  console.log(
    'heap = (heapUsed + arrayBuffers) delta, each side read after global.gc() once it stops shrinking, divided by the key count; the store is created after the baseline, so preallocated LRU arrays count. "incl. key text": keys `user:<i>` built during insertion, prefixed by each limiter (sluice:/rlflx:).',
  );

  if (args.scale) {
    const rows: ScaleRow[] = [];
    for (const n of SCALE_KEYS) {
      rows.push(await scaleAt(n));
      process.stderr.write(`scale ${n} keys done\n`);
    }
    const s = plainTable([
      'scale: keys',
      'sluice decisions/s',
      'RLF decisions/s',
      'sluice / RLF',
      'sluice store.consume (sync)',
      'sluice heap B/key',
      'RLF heap B/key',
    ]);
    for (const row of rows) {
      s.push([
        row.keys.toLocaleString('en-US'),
        fmtRate(median(row.sluice)),
        fmtRate(median(row.rlf)),
        `${(median(row.sluice) / median(row.rlf)).toFixed(2)}x`,
        fmtRate(median(row.store)),
        `${row.heapSluice.toFixed(1)} B`,
        `${row.heapRlf.toFixed(1)} B`,
      ]);
    }
    console.log(s.toString());
    const first = rows[0]!;
    const last = rows.at(-1)!;
    const flat = (pick: (r: ScaleRow) => number[]) => median(pick(last)) / median(pick(first));
    const flatness = {
      sluice: flat((r) => r.sluice),
      rlf: flat((r) => r.rlf),
      store: flat((r) => r.store),
    };
    const flatPass = flatness.sluice >= FLAT_MIN_RATIO;
    if (!flatPass) failed = true;
    console.log(
      `scale: ${RESIDENT_CONFIG} for sluice (T = 1 h: every key stays resident), RLF as above; every key consumed once before measuring; median of ${SCALE_ROUNDS} interleaved rounds of ~${MEASURE_MS} ms over all keys round robin; heap = store overhead with keys pre-built.`,
    );
    console.log(
      `flat (decisions/s at ${last.keys} keys / at ${first.keys} keys, >= ${FLAT_MIN_RATIO}): sluice ${flatness.sluice.toFixed(2)} ${flatPass ? 'PASS' : 'FAIL'}; store.consume ${flatness.store.toFixed(2)}; RLF ${flatness.rlf.toFixed(2)} (info)`,
    );
    report.scale = {
      config: RESIDENT_CONFIG,
      rounds: SCALE_ROUNDS,
      flatMinRatio: FLAT_MIN_RATIO,
      flatness,
      verdict: flatPass ? 'PASS' : 'FAIL',
      rows: rows.map((r) => ({
        keys: r.keys,
        sluice: median(r.sluice),
        rlf: median(r.rlf),
        store: median(r.store),
        sluiceRounds: r.sluice,
        rlfRounds: r.rlf,
        storeRounds: r.store,
        heapSluice: r.heapSluice,
        heapRlf: r.heapRlf,
        liveKeys: r.liveKeys,
      })),
    };
  }
  finish();

  function finish(): void {
    console.log(`\noverall: ${failed ? 'FAIL' : 'PASS'}`);
    report.overall = failed ? 'FAIL' : 'PASS';
    if (args.json !== undefined) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  }

  function mk(label: string, a: Case['a'], b: Case['b'], target: number | undefined): Case {
    return { label, a, b, target, a_: [], b_: [] };
  }
}

await main();
