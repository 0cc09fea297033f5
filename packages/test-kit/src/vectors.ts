import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cellThrottle, leakyBucket, RateLimiter, type Store, toCellReply } from '@sluice/core';
import type { Algorithm, CellReply } from '@sluice/core/store';
import { EPOCH } from './epoch.js';

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

// The paths are functions, not constants: `__dirname` exists where the tests run (jest
// compiles to CommonJS) but not in an ES module, and the bench imports this package under
// tsx as one (it never reads the vectors).

/** This package's folder (packages/test-kit). */
const packageDir = (): string => join(__dirname, '..');

/** The contract's vectors: the shared folder beside the repository (`../shared`). */
export function sharedVectorsPath(): string {
  return join(packageDir(), '..', '..', '..', 'shared', 'vectors', 'gcra.json');
}

/**
 * A verbatim copy of the shared vectors, committed so a clone anywhere can run the tests;
 * core's `vectors-copy.test.ts` fails when it differs from the shared file.
 */
export function copiedVectorsPath(): string {
  return join(packageDir(), 'vectors', 'gcra.json');
}

/**
 * The vectors file used: `SLUICE_VECTORS` when set, else the shared folder beside the
 * repository when it is there, else the committed copy.
 */
export function vectorsPath(): string {
  const shared = sharedVectorsPath();
  return process.env.SLUICE_VECTORS ?? (existsSync(shared) ? shared : copiedVectorsPath());
}

/** 2026-01-01T00:00:00Z ({@link EPOCH}): vectors run at a real epoch time, as in production. */
export const VECTOR_EPOCH = EPOCH;

/** The cases of the vectors file; a clear error when it is not where it should be. */
export function loadVectors(): VectorCase[] {
  const path = vectorsPath();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(
      `the redis-cell vectors are not at ${path}: set SLUICE_VECTORS to ` +
        `shared/vectors/gcra.json (${String(error)})`,
    );
  }
  return (JSON.parse(text) as { cases: VectorCase[] }).cases;
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

/** One run of a vector case: the case's own factory, or its `equivalent`. */
export interface VectorRun {
  label: string;
  factory: VectorCase['factory'];
  args: unknown[];
  steps: VectorStep[];
}

/** Every case of the vectors file, once per factory that must reproduce it. */
export function vectorRuns(): VectorRun[] {
  return loadVectors().flatMap((c) => {
    const runs: VectorRun[] = [
      { label: `${c.name} [${c.factory}]`, factory: c.factory, args: c.args, steps: c.steps },
    ];
    if (c.equivalent) {
      runs.push({ label: `${c.name} [${c.equivalent.factory}]`, ...c.equivalent, steps: c.steps });
    }
    return runs;
  });
}

/**
 * Replays a run's steps on `store` through a `RateLimiter` whose clock is `epoch` (default
 * VECTOR_EPOCH) plus each step's `t`, and returns the `toCellReply` of every decision.
 */
export async function replayVector(
  run: VectorRun,
  store: Store,
  prefix = 'sluice',
  epoch = VECTOR_EPOCH,
): Promise<CellReply[]> {
  let now = epoch;
  const limiter = new RateLimiter({
    algorithm: buildVectorAlgorithm(run.factory, run.args),
    store,
    prefix,
    clock: () => now,
  });
  const replies: CellReply[] = [];
  for (const step of run.steps) {
    now = epoch + step.t;
    replies.push(toCellReply(await limiter.consume('vector-key', { cost: step.cost })));
  }
  return replies;
}
