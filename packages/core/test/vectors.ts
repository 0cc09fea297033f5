import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Algorithm, cellThrottle, leakyBucket } from '../src/index.js';

/** One step of a `shared/vectors/gcra.json` case. */
export interface VectorStep {
  t: number;
  cost: number;
  cell: [number, number, number, number, number];
}

/** One case of `shared/vectors/gcra.json` (redis-cell's `CL.THROTTLE` replies). */
export interface VectorCase {
  name: string;
  factory: 'cellThrottle' | 'leakyBucket';
  args: unknown[];
  equivalent?: { factory: 'cellThrottle' | 'leakyBucket'; args: unknown[] };
  steps: VectorStep[];
}

/** The vectors file lives in the shared folder beside the repository (`../shared`). */
export const VECTORS_PATH = join(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'shared',
  'vectors',
  'gcra.json',
);

/** 2026-01-01T00:00:00Z: vectors run at a real epoch time, as in production. */
export const VECTOR_EPOCH = Date.UTC(2026, 0, 1);

export function loadVectors(): VectorCase[] {
  return (JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as { cases: VectorCase[] }).cases;
}

/** Builds the algorithm a vector names. */
export function buildVectorAlgorithm(factory: string, args: unknown[]): Algorithm {
  if (factory === 'cellThrottle') {
    const [maxBurst, count, period] = args as [number, number, number];
    return cellThrottle(maxBurst, count, period);
  }
  if (factory === 'leakyBucket')
    return leakyBucket(args[0] as { capacity: number; leakRate: number });
  throw new Error(`unknown vector factory ${factory}`);
}
