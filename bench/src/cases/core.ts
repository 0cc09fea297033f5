// bench:core's cases as data: the compared rows (sluice's side, RLF's, judged or not) and the heap
// subjects, with the limiters they run, each configured never to deny.
import { fixedWindow, MemoryStore, RateLimiter } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { gcraAlgo } from '../measure/common.js';
import {
  loopAwaitFloor,
  loopLimiter,
  loopLimiterConcurrent,
  loopRlf,
  loopRlfConcurrent,
  loopStore,
  type Pair,
} from '../measure/core-loops.js';

/** A fixed window of 60 s (RLF's `duration: 60`) with a limit we never reach. */
export const fixedAlgo = (): Algorithm => fixedWindow({ limit: 1e12, window: '60s' });
export const FIXED_CONFIG = 'fixedWindow({ limit: 1e12, window: "60s" })';
export const RLF_CONFIG = 'rate-limiter-flexible RateLimiterMemory({ points: 1e12, duration: 60 })';

export const sluiceLimiter = (algorithm: Algorithm, maxKeys: number) =>
  new RateLimiter({ algorithm, store: new MemoryStore({ maxKeys }) });
export const rlf = (keyPrefix = 'rlflx') =>
  new RateLimiterMemory({ points: 1e12, duration: 60, keyPrefix });

type AlgoName = 'gcra' | 'fixed';
/** One key (`user:42`) or the `--keys` pre-built keys round robin. */
type KeySet = 'one' | 'many';
/** The awaited limiter, the limiter with calls in flight, or the store's synchronous API. */
type Api = 'awaited' | 'in flight' | 'store';

/** sluice's side of a row, or the await of a constant decision (no limiter). */
type SluiceSide = { api: Api; algo: AlgoName; keys: KeySet } | { api: 'await floor' };

export interface CoreCase {
  label: string;
  sluice: SluiceSide;
  rlf: { api: Exclude<Api, 'store'>; keys: KeySet };
  /** Held to bench/targets.json's core.vsRlf; absent: shown for information. */
  judged?: boolean;
}

const L = 'RateLimiter.consume (awaited)';
const S = 'MemoryStore (store.consume, its own API)';
/** The four rows of one API: GCRA and fixed window, each over 1 key and over the many keys. */
const rowsOf = (api: Api, label: string, rlfApi: CoreCase['rlf']['api'], suffix = ''): CoreCase[] =>
  (['gcra', 'fixed'] as const).flatMap((algo) =>
    (['one', 'many'] as const).map((keys) => ({
      label: `${label}: ${algo === 'gcra' ? 'GCRA' : 'fixed window'}, ${keys === 'one' ? '1 key' : '100k keys'}${suffix}`,
      sluice: { api, algo, keys },
      rlf: { api: rlfApi, keys },
      ...(api === 'store' && { judged: true }),
    })),
  );

/** The compared rows, in the order they run and print; "100k" becomes `--keys`. */
export const CORE_CASES: readonly CoreCase[] = [
  ...rowsOf('awaited', L, 'awaited'),
  ...rowsOf('in flight', L, 'in flight', ', 256 in flight'),
  {
    label: 'extra: await floor (await of a constant; no limiter), vs RLF 1 key',
    sluice: { api: 'await floor' },
    rlf: { api: 'awaited', keys: 'one' },
  },
  // The store's own API against RLF awaited (it has no synchronous API).
  ...rowsOf('store', S, 'awaited'),
];

/** The limiters and stores the rows share, built in this order before any is measured. */
function subjects(many: number) {
  /** One for each key set, built one after the other. */
  const each = <T>(make: () => T) => ({ one: make(), many: make() });
  const limiter = {
    gcra: each(() => sluiceLimiter(gcraAlgo(), many)),
    fixed: each(() => sluiceLimiter(fixedAlgo(), many)),
  };
  const peer = each(() => rlf());
  const gcraStores = each(() => new MemoryStore({ maxKeys: many }));
  const algorithm = { gcra: gcraAlgo(), fixed: fixedAlgo() };
  const fixedStores = each(() => new MemoryStore({ maxKeys: many }));
  return { limiter, peer, store: { gcra: gcraStores, fixed: fixedStores }, algorithm };
}

/** The rows of {@link CORE_CASES} as pairs to measure, over `keys` and `ms` per figure. */
export function corePairs(keys: Record<KeySet, string[]>, many: number, ms: number): Pair[] {
  const s = subjects(many);
  const sluiceSide = (side: SluiceSide): Pair['a'] => {
    if (side.api === 'await floor') return () => loopAwaitFloor(ms);
    const k = keys[side.keys];
    if (side.api === 'store') {
      const store = s.store[side.algo][side.keys];
      const algorithm = s.algorithm[side.algo];
      return () => loopStore(store, algorithm, k, ms);
    }
    const limiter = s.limiter[side.algo][side.keys];
    if (side.api === 'awaited') return () => loopLimiter(limiter, k, ms);
    return () => loopLimiterConcurrent(limiter, k, ms);
  };
  const rlfSide = (side: CoreCase['rlf']): Pair['b'] => {
    const peer = s.peer[side.keys];
    const k = keys[side.keys];
    if (side.api === 'awaited') return () => loopRlf(peer, k, ms);
    return () => loopRlfConcurrent(peer, k, ms);
  };
  return CORE_CASES.map((c) => ({
    label: many === 100_000 ? c.label : c.label.replace('100k', `${many}`),
    a: sluiceSide(c.sluice),
    b: rlfSide(c.rlf),
    judged: c.judged === true,
    a_: [],
    b_: [],
  }));
}

/** A heap subject: what is built to be measured, two ways. */
export interface HeapSubject {
  /** Store overhead only: keys are pre-built, retained outside, and stored as given. */
  overhead: (keys: string[]) => Promise<unknown>;
  /** Keys built during insertion and retained only by the limiter (key text included). */
  withKeys: (n: number) => Promise<unknown>;
}

/** sluice's heap subject for `algorithm`; its limiter holds at most `many` keys. */
export const sluiceHeap = (algorithm: () => Algorithm, many: number): HeapSubject => ({
  async overhead(keys) {
    // The store is what keeps the state; it is handed the very key strings we retain.
    const store = new MemoryStore({ maxKeys: keys.length });
    const algo = algorithm();
    for (const key of keys) store.consume(key, algo, 1, Date.now());
    return store;
  },
  async withKeys(n) {
    const limiter = sluiceLimiter(algorithm(), many);
    for (let i = 0; i < n; i++) await limiter.consume(`user:${i}`);
    return limiter;
  },
});

/** RLF's heap subject. */
export const RLF_HEAP: HeapSubject = {
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
};

/** The heap rows, by name; sluice's limiters hold at most `many` keys. */
export const heapSubjects = (many: number): Record<string, HeapSubject> => ({
  'sluice GCRA': sluiceHeap(gcraAlgo, many),
  'sluice fixed window': sluiceHeap(fixedAlgo, many),
  'rate-limiter-flexible': RLF_HEAP,
});
