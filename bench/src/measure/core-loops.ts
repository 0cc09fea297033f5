// bench:core's measurement loops: one per API (so every call site stays monomorphic), the
// interleaved rounds of a table of pairs, and the heap-per-key measure (node --expose-gc).
import { performance } from 'node:perf_hooks';
import type { Decision, MemoryStore, RateLimiter } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import type { RateLimiterMemory } from 'rate-limiter-flexible';
import { interleave } from './common.js';

/** Calls between two clock reads in every loop. */
export const BATCH = 2048;

export function check(d: Decision): void {
  if (!d.allowed) throw new Error('sluice denied a request: the bench limits are wrong');
}

/**
 * Calls/s of `batch` (BATCH awaited calls) run again until `ms` have passed, the clock read once a
 * batch; each loop is its own closure around one API, so its call site stays monomorphic.
 */
export async function timed(ms: number, batch: () => Promise<void>): Promise<number> {
  let ops = 0;
  const start = performance.now();
  let now = start;
  do {
    await batch();
    ops += BATCH;
    now = performance.now();
  } while (now - start < ms);
  return (ops * 1000) / (now - start);
}

export const loopLimiter = (limiter: RateLimiter, keys: string[], ms: number) => {
  const n = keys.length;
  let i = 0;
  return timed(ms, async () => {
    for (let j = 0; j < BATCH; j++) {
      check(await limiter.consume(keys[i]!));
      if (++i === n) i = 0;
    }
  });
};

// consume rejects when over the limit; it never is here, so a rejection aborts the run.
export const loopRlf = (limiter: RateLimiterMemory, keys: string[], ms: number) => {
  const n = keys.length;
  let i = 0;
  return timed(ms, async () => {
    for (let j = 0; j < BATCH; j++) {
      await limiter.consume(keys[i]!);
      if (++i === n) i = 0;
    }
  });
};

/** How many calls the concurrent loops keep in flight (a busy server's overlapping requests). */
export const IN_FLIGHT = 256;

export const loopLimiterConcurrent = (limiter: RateLimiter, keys: string[], ms: number) => {
  const n = keys.length;
  let i = 0;
  const pending: Promise<Decision>[] = new Array(IN_FLIGHT);
  return timed(ms, async () => {
    for (let b = 0; b < BATCH / IN_FLIGHT; b++) {
      for (let j = 0; j < IN_FLIGHT; j++) {
        pending[j] = limiter.consume(keys[i]!);
        if (++i === n) i = 0;
      }
      for (const d of await Promise.all(pending)) check(d);
    }
  });
};

export const loopRlfConcurrent = (limiter: RateLimiterMemory, keys: string[], ms: number) => {
  const n = keys.length;
  let i = 0;
  const pending: Promise<unknown>[] = new Array(IN_FLIGHT);
  return timed(ms, async () => {
    for (let b = 0; b < BATCH / IN_FLIGHT; b++) {
      for (let j = 0; j < IN_FLIGHT; j++) {
        pending[j] = limiter.consume(keys[i]!);
        if (++i === n) i = 0;
      }
      await Promise.all(pending);
    }
  });
};

/** The ceiling of an awaited `consume`: `await` of a resolved promise of a constant decision. */
export function loopAwaitFloor(ms: number): Promise<number> {
  const decision: Decision = {
    allowed: true,
    limit: 1,
    remaining: 1,
    retryAfterMs: 0,
    resetAfterMs: 0,
    cost: 1,
  };
  return timed(ms, async () => {
    for (let j = 0; j < BATCH; j++) check(await Promise.resolve(decision));
  });
}

// The synchronous store path, deliberately not async: no promise per decision.
export function loopStore(
  store: MemoryStore,
  algorithm: Algorithm,
  keys: string[],
  ms: number,
): number {
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

/** One row of a compared table: sluice's side (`a`) and its peer's (`b`), and their rounds. */
export interface Pair {
  label: string;
  /** Sluice's side, async limiter or sync store. */
  a: () => Promise<number> | number;
  b: () => Promise<number>;
  /** Held to bench/targets.json's core.vsRlf; false: shown for information. */
  judged: boolean;
  a_: number[];
  b_: number[];
}

/** Measures every pair: an unmeasured warm-up pass, then `rounds` rounds of both sides of each. */
export async function measurePairs(pairs: Pair[], rounds: number): Promise<void> {
  const sides = pairs.flatMap((c) => [c.a, c.b]);
  const figures = await interleave(sides, rounds, (side) => side(), { warmUp: (side) => side() });
  for (const [i, c] of pairs.entries()) [c.a_, c.b_] = [figures[2 * i]!, figures[2 * i + 1]!];
}

/** `user:0` … `user:<n-1>`, built one at a time as they are taken (held only by the taker). */
export function* userKeys(n: number): Generator<string> {
  for (let i = 0; i < n; i++) yield `user:${i}`;
}

/** `user:0` … `user:<n-1>`, pre-built. */
export const makeKeys = (n: number): string[] => {
  const keys = new Array<string>(n);
  for (let i = 0; i < n; i++) keys[i] = `user:${i}`;
  return keys;
};

// ---------------------------------------------------------------------------------------
// Heap bytes per key.

/**
 * Heap in use after full GCs, once three readings 10 ms apart stop shrinking: V8's background
 * optimiser can keep a freed store alive a few turns (seen: +2 MB), so the lowest is kept.
 */
async function heapNow(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  let lowest = Number.POSITIVE_INFINITY;
  for (let stable = 0; stable < 3; ) {
    gc();
    const m = process.memoryUsage();
    const now = m.heapUsed + m.arrayBuffers;
    stable = now < lowest - 64 * 1024 ? 0 : stable + 1;
    lowest = Math.min(lowest, now);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return lowest;
}

/** Module-level holder: what a measurement must keep alive is kept here, explicitly. */
const retained: unknown[] = [];

/**
 * Heap delta of one `build`, per key; its own async function, so no suspended frame holds what it
 * awaited. `done` runs on what was built before it is let go.
 */
export async function heapDelta<T>(
  build: () => Promise<T>,
  n: number,
  done?: (built: T) => Promise<void>,
): Promise<number> {
  const before = await heapNow();
  const built = await build();
  retained.push(built);
  const after = await heapNow();
  await done?.(built);
  retained.length = 0;
  return (after - before) / n;
}
