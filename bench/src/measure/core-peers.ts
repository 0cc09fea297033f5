/**
 * bench/src/core.ts's "sluice vs every peer" section: sluice's RateLimiter + MemoryStore and the
 * in-memory stores of rate-limiter-flexible, express-rate-limit, @fastify/rate-limit and
 * koa-ratelimit, in one run: awaited decisions/s over 1 key and over `keys` pre-built keys
 * round robin (subjects interleaved A B C D E per round, medians of the rounds), then heap
 * bytes per key with its key text (keys built during insertion, held only by the limiter).
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { MemoryStore, RateLimiter } from '@sluice/core';
import { MemoryStore as ErlMemoryStore, type Options as ErlOptions } from 'express-rate-limit';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import {
  GCRA_CONFIG,
  gcraAlgo,
  median,
  plainTable,
  RESIDENT_CONFIG,
  residentAlgo,
} from './common.js';
import { BATCH, check, heapDelta, loopLimiter, loopRlf, makeKeys, userKeys } from './core-loops.js';

/** Every peer's limit: never reached in a run. */
const LIMIT = 1e12;
/** Every peer's window, ms. */
const WINDOW_MS = 60_000;

// @fastify/rate-limit exports neither its LocalStore nor koa-ratelimit its memory limiter (nor
// types for them): both are loaded from their files, typed by the few members used here.
const require = createRequire(import.meta.url);

/** @fastify/rate-limit 11 store/LocalStore.js: a toad-cache LruMap of `cache` keys. */
interface FastifyLocalStore {
  incr(
    key: string,
    cb: (err: Error | null, res: { current: number; ttl: number }) => void,
    timeWindow: number,
    max: number,
  ): void;
  readonly lru: { readonly size: number };
}
const FastifyLocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache: number,
) => FastifyLocalStore;

/** koa-ratelimit 6 limiter/memory.js: one object per request, state in the shared `db` Map. */
interface KoaEntry {
  remaining: number;
}
const KoaMemoryLimiter = require('koa-ratelimit/limiter/memory.js') as new (options: {
  id: string;
  db: Map<string, KoaEntry>;
  max: number;
  duration: number;
}) => { get(): Promise<KoaEntry> };

// ---------------------------------------------------------------------------------------
// One call per peer, as its middleware makes it, and its denial check.

/** The @fastify/rate-limit plugin's call: `incr` wrapped in a promise, awaited (index.js). */
function fastifyIncr(store: FastifyLocalStore, key: string): Promise<{ current: number }> {
  return new Promise((resolve, reject) => {
    store.incr(key, (err, res) => (err ? reject(err) : resolve(res)), WINDOW_MS, LIMIT);
  });
}

/** koa-ratelimit's middleware call: a limiter for this id over the shared Map, then `get()`. */
const koaGet = (db: Map<string, KoaEntry>, key: string): Promise<KoaEntry> =>
  new KoaMemoryLimiter({ id: key, db, max: LIMIT, duration: WINDOW_MS }).get();

function denied(peer: string): never {
  throw new Error(`${peer} denied a request: the bench limits are wrong`);
}

// ---------------------------------------------------------------------------------------
// Measurement loops: one per API so every call site stays monomorphic (core-loops.ts has
// sluice's and RLF's).

async function loopErl(store: ErlMemoryStore, keys: string[], ms: number): Promise<number> {
  const n = keys.length;
  let i = 0;
  let ops = 0;
  const start = performance.now();
  let now = start;
  do {
    for (let j = 0; j < BATCH; j++) {
      // The middleware denies when totalHits > limit.
      if ((await store.increment(keys[i]!)).totalHits > LIMIT) denied('express-rate-limit');
      if (++i === n) i = 0;
    }
    ops += BATCH;
    now = performance.now();
  } while (now - start < ms);
  return (ops * 1000) / (now - start);
}

async function loopFastify(store: FastifyLocalStore, keys: string[], ms: number): Promise<number> {
  const n = keys.length;
  let i = 0;
  let ops = 0;
  const start = performance.now();
  let now = start;
  do {
    for (let j = 0; j < BATCH; j++) {
      // The plugin denies when current > max.
      if ((await fastifyIncr(store, keys[i]!)).current > LIMIT) denied('@fastify/rate-limit');
      if (++i === n) i = 0;
    }
    ops += BATCH;
    now = performance.now();
  } while (now - start < ms);
  return (ops * 1000) / (now - start);
}

async function loopKoa(db: Map<string, KoaEntry>, keys: string[], ms: number): Promise<number> {
  const n = keys.length;
  let i = 0;
  let ops = 0;
  const start = performance.now();
  let now = start;
  do {
    for (let j = 0; j < BATCH; j++) {
      // The middleware denies when remaining is 0.
      if ((await koaGet(db, keys[i]!)).remaining <= 0) denied('koa-ratelimit');
      if (++i === n) i = 0;
    }
    ops += BATCH;
    now = performance.now();
  } while (now - start < ms);
  return (ops * 1000) / (now - start);
}

// ---------------------------------------------------------------------------------------
// The subjects.

/** One limiter, built never to deny, bound to its own loop. */
interface Instance {
  /** Decisions/s over `keys` round robin for ~`ms`, each awaited before the next. */
  rate(keys: string[], ms: number): Promise<number>;
  /** One decision (filling the heap measure), checked like the loop's. */
  consume(key: string): Promise<void>;
  /** Throws unless the store holds `user:0` … `user:<n-1>` (counted, or spot-checked). */
  verify(n: number): Promise<void>;
  /** Lets go of what its timers would keep alive past the measure; `keys`: those consumed. */
  dispose(keys: Iterable<string>): Promise<void>;
}

interface Subject {
  name: string;
  /** The measured call and how the limiter is built, as the report prints them. */
  call: string;
  /** How `verify` checks that all keys are held. */
  counted: string;
  /** `maxKeys`: the most keys it must hold; `resident`: for the heap measure (sluice's T = 1 h). */
  create(maxKeys: number, resident: boolean): Instance;
}

function expectCount(name: string, held: number, n: number): void {
  if (held !== n) throw new Error(`${name}: ${held} keys held after inserting ${n}`);
}

const nothing = async () => {};

const SUBJECTS: Subject[] = [
  {
    name: 'sluice',
    call: `await limiter.consume(key), limiter = new RateLimiter({ algorithm: ${GCRA_CONFIG}, store: new MemoryStore({ maxKeys: keys }) }); heap: ${RESIDENT_CONFIG} and maxKeys = the key count`,
    counted: 'store.size (live keys)',
    create(maxKeys, resident) {
      const store = new MemoryStore({ maxKeys });
      const limiter = new RateLimiter({
        algorithm: resident ? residentAlgo() : gcraAlgo(),
        store,
      });
      return {
        rate: (keys, ms) => loopLimiter(limiter, keys, ms),
        consume: async (key) => check(await limiter.consume(key)),
        verify: async (n) => expectCount('sluice', store.size, n),
        dispose: nothing,
      };
    },
  },
  {
    name: 'rate-limiter-flexible',
    call: `await limiter.consume(key), limiter = new RateLimiterMemory({ points: ${LIMIT}, duration: 60 }) (rejects when over the limit)`,
    counted: 'no public count: limiter.get() of the first and last key',
    create() {
      const limiter = new RateLimiterMemory({ points: LIMIT, duration: WINDOW_MS / 1000 });
      return {
        rate: (keys, ms) => loopRlf(limiter, keys, ms),
        consume: async (key) => {
          await limiter.consume(key);
        },
        async verify(n) {
          for (const key of ['user:0', `user:${n - 1}`])
            if ((await limiter.get(key)) === null) throw new Error(`RLF lost ${key}`);
        },
        // Each key has a 60 s timer holding the store; delete clears it.
        async dispose(keys) {
          for (const key of keys) await limiter.delete(key);
        },
      };
    },
  },
  {
    name: 'express-rate-limit',
    call: `await store.increment(key), store = new MemoryStore(); store.init({ windowMs: ${WINDOW_MS} }) (denied if totalHits > ${LIMIT})`,
    counted: 'store.current.size + store.previous.size',
    create() {
      const store = new ErlMemoryStore();
      // init reads windowMs only (and starts the store's unref'd clean-up interval).
      store.init({ windowMs: WINDOW_MS } as ErlOptions);
      return {
        rate: (keys, ms) => loopErl(store, keys, ms),
        consume: async (key) => {
          if ((await store.increment(key)).totalHits > LIMIT) denied('express-rate-limit');
        },
        verify: async (n) =>
          expectCount('express-rate-limit', store.current.size + store.previous.size, n),
        // The interval holds the store.
        dispose: async () => store.shutdown(),
      };
    },
  },
  {
    name: '@fastify/rate-limit',
    call: `await new Promise((resolve, reject) => store.incr(key, (err, res) => err ? reject(err) : resolve(res), ${WINDOW_MS}, ${LIMIT})), as the plugin awaits it; store = new LocalStore(false, false, keys) from @fastify/rate-limit/store/LocalStore.js (cache = keys) (denied if current > max)`,
    counted: 'store.lru.size',
    create(maxKeys) {
      // The plugin's defaults (no continueExceeding, no exponentialBackoff); its `cache`
      // option (default 5000) sized so the LRU evicts nothing.
      const store = new FastifyLocalStore(false, false, maxKeys);
      return {
        rate: (keys, ms) => loopFastify(store, keys, ms),
        consume: async (key) => {
          if ((await fastifyIncr(store, key)).current > LIMIT) denied('@fastify/rate-limit');
        },
        verify: async (n) => expectCount('@fastify/rate-limit', store.lru.size, n),
        dispose: nothing,
      };
    },
  },
  {
    name: 'koa-ratelimit',
    call: `await new MemoryLimiter({ id: key, db, max: ${LIMIT}, duration: ${WINDOW_MS} }).get(), MemoryLimiter from koa-ratelimit/limiter/memory.js, db one shared Map (the middleware builds one per request from its options) (denied if remaining is 0)`,
    counted: 'db.size',
    create() {
      const db = new Map<string, KoaEntry>();
      return {
        rate: (keys, ms) => loopKoa(db, keys, ms),
        consume: async (key) => {
          if ((await koaGet(db, key)).remaining <= 0) denied('koa-ratelimit');
        },
        verify: async (n) => expectCount('koa-ratelimit', db.size, n),
        dispose: nothing,
      };
    },
  },
];

// ---------------------------------------------------------------------------------------
// The section.

/** The section's JSON, part of core.ts's CoreReport. */
export interface PeersReport {
  rounds: number;
  ms: number;
  keys: number;
  subjects: { name: string; call: string; counted: string }[];
  rows: PeerRow[];
}

export interface PeerRow {
  label: string;
  kind: 'rate' | 'heap';
  keys: number;
  /** Per subject, in `subjects` order: the median and every round (heap: one measure). */
  figures: { name: string; median: number; rounds: number[] }[];
  /** sluice's goal, or undefined for an informative row. */
  target: string | undefined;
  verdict: 'PASS' | 'FAIL' | '(info)';
  /** How far sluice is from the target, '-' when met. */
  gap: string;
}

const mps = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/** sluice ahead of every peer (median against median). */
function ahead(row: PeerRow): void {
  const [sluice, ...peers] = row.figures;
  const behind = peers.filter((p) => p.median >= sluice!.median);
  row.target = 'ahead of every peer';
  row.verdict = behind.length === 0 ? 'PASS' : 'FAIL';
  row.gap =
    behind
      .map((p) => `${p.name} ${mps(p.median)}: sluice at ${pct(sluice!.median / p.median)}`)
      .join('; ') || '-';
}

function atLeast(row: PeerRow, rate: number): void {
  const sluice = row.figures[0]!.median;
  row.target = `>= ${mps(rate)}`;
  row.verdict = sluice >= rate ? 'PASS' : 'FAIL';
  row.gap = sluice >= rate ? '-' : `${pct(sluice / rate)} of ${mps(rate)}`;
}

function atMost(row: PeerRow, bytes: number): void {
  const sluice = row.figures[0]!.median;
  row.target = `<= ${bytes} B`;
  row.verdict = sluice <= bytes ? 'PASS' : 'FAIL';
  row.gap = sluice <= bytes ? '-' : `${(sluice - bytes).toFixed(1)} B over`;
}

const emptyRow = (label: string, kind: PeerRow['kind'], keys: number): PeerRow => ({
  label,
  kind,
  keys,
  figures: SUBJECTS.map((s) => ({ name: s.name, median: 0, rounds: [] })),
  target: undefined,
  verdict: '(info)',
  gap: '-',
});

const fill = async (instance: Instance, n: number): Promise<Instance> => {
  for (const key of userKeys(n)) await instance.consume(key);
  return instance;
};

/**
 * Runs the section: heap first (each size, every subject), then the two throughput rows.
 * Verdicts: 1 key, sluice ahead of every peer; `keys` keys, sluice >= 4 M/s; heap with key
 * text at the largest of `heapKeys`, sluice <= 100 B.
 */
export async function runPeers(options: {
  rounds: number;
  ms: number;
  keys: number;
  heapKeys: number[];
}): Promise<PeersReport> {
  const { rounds, ms, keys, heapKeys } = options;
  const heapRows: PeerRow[] = [];
  for (const n of heapKeys) {
    const r = emptyRow(
      `heap bytes per key incl. key text, ${n.toLocaleString('en-US')} keys`,
      'heap',
      n,
    );
    for (const [k, s] of SUBJECTS.entries()) {
      const perKey = await heapDelta(
        () => fill(s.create(n, true), n),
        n,
        async (built) => {
          await built.verify(n);
          await built.dispose(userKeys(n));
        },
      );
      r.figures[k]!.rounds.push(perKey);
    }
    heapRows.push(r);
    process.stderr.write(`peers: heap at ${n} keys done\n`);
  }

  const many = makeKeys(keys);
  const one = ['user:42'];
  const cases = [
    { row: emptyRow('awaited decisions/s, 1 key', 'rate', 1), keys: one },
    {
      row: emptyRow(
        `awaited decisions/s, ${keys.toLocaleString('en-US')} keys round robin`,
        'rate',
        keys,
      ),
      keys: many,
    },
  ].map((c) => ({ ...c, instances: SUBJECTS.map((s) => s.create(keys, false)) }));
  // Warm-up: JIT, and every store filled with its keys; not measured.
  for (const c of cases) for (const inst of c.instances) await inst.rate(c.keys, ms);
  for (let r = 0; r < rounds; r++) {
    for (const c of cases)
      for (const [k, inst] of c.instances.entries())
        c.row.figures[k]!.rounds.push(await inst.rate(c.keys, ms));
    process.stderr.write(`peers: round ${r + 1}/${rounds} done\n`);
  }
  for (const c of cases) for (const inst of c.instances) await inst.dispose(c.keys);

  const rows = [...cases.map((c) => c.row), ...heapRows];
  for (const r of rows) for (const f of r.figures) f.median = median(f.rounds);
  ahead(cases[0]!.row);
  atLeast(cases[1]!.row, 4e6);
  if (heapRows.length > 0) atMost(heapRows.at(-1)!, 100);
  print(rows);
  return {
    rounds,
    ms,
    keys,
    subjects: SUBJECTS.map(({ name, call, counted }) => ({ name, call, counted })),
    rows,
  };
}

function print(rows: PeerRow[]): void {
  const value = (r: PeerRow, x: number) => (r.kind === 'rate' ? mps(x) : `${x.toFixed(1)} B`);
  const t = plainTable([
    'core: sluice vs every peer',
    ...SUBJECTS.map((s) => s.name),
    'target',
    'verdict',
  ]);
  for (const r of rows)
    t.push([r.label, ...r.figures.map((f) => value(r, f.median)), r.target ?? '-', r.verdict]);
  console.log(t.toString());
  console.log(
    `per-round figures (${SUBJECTS.map((s) => s.name).join(' | ')}):\n${rows
      .map(
        (r) =>
          `  ${r.label}: ${r.figures.map((f) => f.rounds.map((x) => (r.kind === 'rate' ? (x / 1e6).toFixed(2) : x.toFixed(1))).join(' ')).join(' | ')}`,
      )
      .join('\n')}`,
  );
  console.log(
    `measured calls:\n${SUBJECTS.map((s) => `  ${s.name}: ${s.call}; keys held checked by ${s.counted}`).join('\n')}\n`,
  );
}
