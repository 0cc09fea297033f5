import {
  cellThrottle,
  concurrency,
  fixedWindow,
  gcra,
  leakyBucket,
  penalty,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '@sluice/core';
import { type Algorithm, calendarQuota, parsePenalty } from '@sluice/core/store';

/**
 * An algorithm of the store conformance suite, by name, so a worker process builds the same
 * one: `build()` makes it, `scale` is its time scale in ms (emission interval or window).
 */
export interface StoreAlgorithm {
  readonly name: string;
  readonly scale: number;
  build(): Algorithm;
}

/**
 * Every algorithm family and feature a store runs: GCRA in its four forms (sub-ms emission
 * intervals too), the windows, the log, a calendar quota, concurrency leases, and penalties
 * (`blockFor`, with backoff) around a number state and an array state.
 */
export const STORE_ALGORITHMS: readonly StoreAlgorithm[] = [
  { name: 'gcra 10/s', scale: 100, build: () => gcra({ rate: 10, period: '1s' }) },
  {
    name: 'gcra 3000/s burst 20',
    scale: 2,
    build: () => gcra({ rate: 3000, period: '1s', burst: 20 }),
  },
  { name: 'cellThrottle(4, 3, 2)', scale: 667, build: () => cellThrottle(4, 3, 2) },
  {
    name: 'leakyBucket 5 @ 0.3/s',
    scale: 3334,
    build: () => leakyBucket({ capacity: 5, leakRate: 0.3 }),
  },
  {
    name: 'tokenBucket 8 @ 3/s',
    scale: 334,
    build: () => tokenBucket({ capacity: 8, refillRate: 3, refillInterval: '1s' }),
  },
  { name: 'fixedWindow 5/1s', scale: 1000, build: () => fixedWindow({ limit: 5, window: 1000 }) },
  {
    name: 'slidingWindow 7/3001ms',
    scale: 3001,
    build: () => slidingWindow({ limit: 7, window: 3001 }),
  },
  { name: 'slidingLog 5/1s', scale: 1000, build: () => slidingLog({ limit: 5, window: 1000 }) },
  {
    name: 'calendar day (Europe/Paris) 6',
    scale: 3_600_000,
    build: () =>
      calendarQuota(6, { unit: 'day', timeZone: 'Europe/Paris', weekStart: 1, anchorDay: 1 }),
  },
  {
    name: 'concurrency 3, leases of 1s',
    scale: 300,
    build: () => concurrency({ limit: 3, leaseMs: 1000 }),
  },
  {
    name: 'gcra 5/s blockFor 2s x2 up to 10s',
    scale: 200,
    build: () =>
      penalty(
        gcra({ rate: 5, period: '1s' }),
        parsePenalty(2000, { backoff: 2, maxBlock: 10_000 }),
      ),
  },
  {
    name: 'slidingWindow 4/1s blockFor 1.5s',
    scale: 250,
    build: () => penalty(slidingWindow({ limit: 4, window: 1000 }), parsePenalty(1500)),
  },
];

/** The algorithm named `name` in {@link STORE_ALGORITHMS} (or the 100-per-hour ones). */
export function storeAlgorithm(name: string): Algorithm {
  const found = [...STORE_ALGORITHMS, ...HUNDRED_PER_HOUR].find((a) => a.name === name);
  if (found === undefined) throw new Error(`no store algorithm named ${name}`);
  return found.build();
}

/** Every family with a quota of exactly 100 for an hour: the exactness races. */
export const HUNDRED_PER_HOUR: readonly StoreAlgorithm[] = [
  { name: '100/h gcra', scale: 36_000, build: () => gcra({ rate: 100, period: '1h' }) },
  { name: '100/h cellThrottle', scale: 36_000, build: () => cellThrottle(99, 100, 3600) },
  {
    name: '100/h tokenBucket',
    scale: 36_000,
    build: () => tokenBucket({ capacity: 100, refillRate: 1, refillInterval: '1h' }),
  },
  {
    name: '100/h fixedWindow',
    scale: 3_600_000,
    build: () => fixedWindow({ limit: 100, window: '1h' }),
  },
  {
    name: '100/h slidingWindow',
    scale: 3_600_000,
    build: () => slidingWindow({ limit: 100, window: '1h' }),
  },
  {
    name: '100/h slidingLog',
    scale: 3_600_000,
    build: () => slidingLog({ limit: 100, window: '1h' }),
  },
  {
    name: '100 concurrent',
    scale: 3_600_000,
    build: () => concurrency({ limit: 100, leaseMs: '1h' }),
  },
];
