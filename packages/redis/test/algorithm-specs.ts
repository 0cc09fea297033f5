import {
  cellThrottle,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';

/**
 * An algorithm described as plain data (factory name + arguments), so the same algorithm
 * can be built in the test process and in a forked worker process.
 */
export interface AlgorithmSpec {
  factory:
    | 'gcra'
    | 'cellThrottle'
    | 'leakyBucket'
    | 'tokenBucket'
    | 'fixedWindow'
    | 'slidingWindow'
    | 'slidingLog';
  args: unknown[];
}

/** Builds the algorithm an {@link AlgorithmSpec} names. */
export function buildAlgorithm(spec: AlgorithmSpec): Algorithm {
  const a = spec.args as never[];
  switch (spec.factory) {
    case 'gcra':
      return gcra(a[0]!);
    case 'cellThrottle':
      return cellThrottle(a[0]!, a[1]!, a[2]!);
    case 'leakyBucket':
      return leakyBucket(a[0]!);
    case 'tokenBucket':
      return tokenBucket(a[0]!);
    case 'fixedWindow':
      return fixedWindow(a[0]!);
    case 'slidingWindow':
      return slidingWindow(a[0]!);
    case 'slidingLog':
      return slidingLog(a[0]!);
  }
}

/** A readable label for test titles. */
export function specLabel(spec: AlgorithmSpec): string {
  return `${spec.factory}(${spec.args.map((x) => JSON.stringify(x)).join(', ')})`;
}

/**
 * Every algorithm with a limit of exactly 100 per hour (or its equivalent), for the
 * contention tests: long enough that nothing refills while 2000 calls are decided.
 */
export const HUNDRED_PER_HOUR: AlgorithmSpec[] = [
  { factory: 'gcra', args: [{ rate: 100, period: '1h' }] },
  { factory: 'cellThrottle', args: [99, 100, 3600] },
  { factory: 'leakyBucket', args: [{ capacity: 100, leakRate: 0.001 }] },
  { factory: 'tokenBucket', args: [{ capacity: 100, refillRate: 1, refillInterval: '1h' }] },
  { factory: 'fixedWindow', args: [{ limit: 100, window: '1h' }] },
  { factory: 'slidingWindow', args: [{ limit: 100, window: '1h' }] },
  { factory: 'slidingLog', args: [{ limit: 100, window: '1h' }] },
];
