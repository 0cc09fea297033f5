/**
 * bench:core's cases as data: the compared rows (sluice's side, rate-limiter-flexible's side,
 * whether the row is judged against bench/targets.json) and the heap subjects, with the limiters they run. Every limiter is
 * configured never to deny.
 */
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
const awaited = (algo: AlgoName, keys: KeySet) => ({ api: 'awaited', algo, keys }) as const;
const inFlight = (algo: AlgoName, keys: KeySet) => ({ api: 'in flight', algo, keys }) as const;
const store = (algo: AlgoName, keys: KeySet) => ({ api: 'store', algo, keys }) as const;
const rlfAwaited = (keys: KeySet) => ({ api: 'awaited', keys }) as const;
const rlfInFlight = (keys: KeySet) => ({ api: 'in flight', keys }) as const;

/** The compared rows, in the order they run and print; "100k" becomes `--keys`. */
export const CORE_CASES: readonly CoreCase[] = [
  { label: `${L}: GCRA, 1 key`, sluice: awaited('gcra', 'one'), rlf: rlfAwaited('one') },
  { label: `${L}: GCRA, 100k keys`, sluice: awaited('gcra', 'many'), rlf: rlfAwaited('many') },
  { label: `${L}: fixed window, 1 key`, sluice: awaited('fixed', 'one'), rlf: rlfAwaited('one') },
  {
    label: `${L}: fixed window, 100k keys`,
    sluice: awaited('fixed', 'many'),
    rlf: rlfAwaited('many'),
  },
  {
    label: `${L}: GCRA, 1 key, 256 in flight`,
    sluice: inFlight('gcra', 'one'),
    rlf: rlfInFlight('one'),
  },
  {
    label: `${L}: GCRA, 100k keys, 256 in flight`,
    sluice: inFlight('gcra', 'many'),
    rlf: rlfInFlight('many'),
  },
  {
    label: `${L}: fixed window, 1 key, 256 in flight`,
    sluice: inFlight('fixed', 'one'),
    rlf: rlfInFlight('one'),
  },
  {
    label: `${L}: fixed window, 100k keys, 256 in flight`,
    sluice: inFlight('fixed', 'many'),
    rlf: rlfInFlight('many'),
  },
  {
    label: 'extra: await floor (await of a constant; no limiter), vs RLF 1 key',
    sluice: { api: 'await floor' },
    rlf: rlfAwaited('one'),
  },
  {
    label: `${S}: GCRA, 1 key`,
    sluice: store('gcra', 'one'),
    rlf: rlfAwaited('one'),
    judged: true,
  },
  {
    label: `${S}: GCRA, 100k keys`,
    sluice: store('gcra', 'many'),
    rlf: rlfAwaited('many'),
    judged: true,
  },
  {
    label: `${S}: fixed window, 1 key`,
    sluice: store('fixed', 'one'),
    rlf: rlfAwaited('one'),
    judged: true,
  },
  {
    label: `${S}: fixed window, 100k keys`,
    sluice: store('fixed', 'many'),
    rlf: rlfAwaited('many'),
    judged: true,
  },
];

/**
 * The limiters and stores the rows share (one per algorithm and key set, as the rows name
 * them), built in this order before any is measured.
 */
function subjects(many: number) {
  const limiter = {
    gcra: { one: sluiceLimiter(gcraAlgo(), many), many: sluiceLimiter(gcraAlgo(), many) },
    fixed: { one: sluiceLimiter(fixedAlgo(), many), many: sluiceLimiter(fixedAlgo(), many) },
  };
  const peer = { one: rlf(), many: rlf() };
  const gcraStores = {
    one: new MemoryStore({ maxKeys: many }),
    many: new MemoryStore({ maxKeys: many }),
  };
  const algorithm = { gcra: gcraAlgo(), fixed: fixedAlgo() };
  const fixedStores = {
    one: new MemoryStore({ maxKeys: many }),
    many: new MemoryStore({ maxKeys: many }),
  };
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

/** The heap rows, by name; sluice's limiters hold at most `many` keys. */
export const heapSubjects = (many: number): Record<string, HeapSubject> => ({
  'sluice GCRA': {
    async overhead(keys) {
      // The store is what keeps the state; it is handed the very key strings we retain.
      const store = new MemoryStore({ maxKeys: keys.length });
      const algorithm = gcraAlgo();
      for (const key of keys) store.consume(key, algorithm, 1, Date.now());
      return store;
    },
    async withKeys(n) {
      const limiter = sluiceLimiter(gcraAlgo(), many);
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
      const limiter = sluiceLimiter(fixedAlgo(), many);
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
});
