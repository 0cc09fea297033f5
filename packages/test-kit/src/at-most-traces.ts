import { type Decision, MemoryStore } from '@sluice/core';
import { type Algorithm, grantsPartially, type Store } from '@sluice/core/store';
import fc from 'fast-check';
import { EPOCH } from './epoch.js';
import { STORE_ALGORITHMS, type StoreAlgorithm } from './store-algorithms.js';

/** The store algorithms that grant part of a request (`consumeAtMost`): all but leases. */
export const AT_MOST_ALGORITHMS: readonly StoreAlgorithm[] = STORE_ALGORITHMS.filter((a) =>
  grantsPartially(a.build()),
);

/** One call of an at-most trace: `consume(n)` or `consumeAtMost(max = n)`, `dt` ms on. */
export interface AtMostOp {
  dt: number;
  atMost: boolean;
  n: number;
}

/**
 * Traces mixing charges and partial grants at the algorithm's time scale (`scale` ms):
 * bursts, small steps, idles; `n` from 1 to a little above the limit.
 */
export function atMostOpsArb(
  scale: number,
  limit: number,
  maxLength = 30,
): fc.Arbitrary<AtMostOp[]> {
  const s = Math.max(1, Math.ceil(scale));
  const dt = fc.oneof(
    { arbitrary: fc.constant(0), weight: 4 },
    { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 2 },
    { arbitrary: fc.integer({ min: 0, max: s }), weight: 3 },
    { arbitrary: fc.integer({ min: 0, max: 4 * s }), weight: 1 },
  );
  const op = fc.record({ dt, atMost: fc.boolean(), n: fc.integer({ min: 1, max: limit + 2 }) });
  return fc.array(op, { minLength: 1, maxLength });
}

/**
 * Runs `ops` on `key` of `store` from `start` (ms since the epoch), each call at its own
 * time (the store must decide on the caller's clock), and returns every decision, in order.
 */
export async function runAtMostTrace(
  store: Store,
  algorithm: Algorithm,
  key: string,
  ops: readonly AtMostOp[],
  start: number,
): Promise<Decision[]> {
  let now = start;
  const out: Decision[] = [];
  for (const op of ops) {
    now += op.dt;
    const d = op.atMost
      ? await store.consumeAtMost!(key, algorithm, op.n, now)
      : await store.consume(key, algorithm, op.n, now);
    // The six fields only (a store's decision may carry a private charge time).
    const { allowed, limit, remaining, retryAfterMs, resetAfterMs, cost } = d;
    out.push({ allowed, limit, remaining, retryAfterMs, resetAfterMs, cost });
  }
  return out;
}

/**
 * One test per {@link AT_MOST_ALGORITHMS} entry: `runs` random traces (charges and partial
 * grants) on `store()` decide exactly as on a `MemoryStore` (core's `stepAtMost`), each
 * trace on a key of its own. The differential test of a store's `consumeAtMost` twin.
 */
export function itGrantsAsMemory(store: () => Store, runs: number, timeoutMs?: number): void {
  let run = 0;
  it.each(AT_MOST_ALGORITHMS.map((a) => [a.name, a] as const))(
    '%s',
    async (_name, spec) => {
      const algorithm = spec.build();
      await fc.assert(
        fc.asyncProperty(atMostOpsArb(spec.scale, algorithm.limit), async (ops) => {
          const key = `at-most:${run++}`;
          const memory = new MemoryStore({ maxKeys: 8 });
          const expected = await runAtMostTrace(memory, algorithm, key, ops, EPOCH);
          expect(await runAtMostTrace(store(), algorithm, key, ops, EPOCH)).toEqual(expected);
        }),
        { numRuns: runs },
      );
    },
    timeoutMs,
  );
}
