// consumeAtMost: the grant is the largest n <= max that consume(n) would admit (probed on a
// copy of the key's state), it charges exactly what consume(n) charges, and a grant of 0
// charges nothing (no penalty block either) and waits exactly until 1 unit fits.
import { EPOCH, STORE_ALGORITHMS } from '@sluice/test-kit';
import fc from 'fast-check';
import { algorithmKeyTag } from '../../src/algorithms/key-tag.js';
import { MemoryStore, RateLimiter } from '../../src/index.js';
import { type Algorithm, grantsPartially, type State } from '../../src/store-api.js';
import { copyState, deltaArb, RUNS } from './harness.js';

interface Op {
  dt: number;
  /** consume(cost) when `atMost` is false, else consumeAtMost(max = n). */
  atMost: boolean;
  n: number;
}

function opsArb(scale: number, limit: number): fc.Arbitrary<Op[]> {
  const op = fc.record({
    dt: deltaArb(scale),
    atMost: fc.boolean(),
    n: fc.integer({ min: 1, max: limit + 3 }),
  });
  return fc.array(op, { minLength: 1, maxLength: 50 });
}

/** The largest n <= max that `step` admits on `state`, probing every n (a copy each time). */
function probe(algorithm: Algorithm, state: State | undefined, now: number, max: number): number {
  for (let n = max; n >= 1; n--) {
    if (algorithm.step(copyState(state), now, n).decision.allowed) return n;
  }
  return 0;
}

const RATES = STORE_ALGORITHMS.filter((a) => grantsPartially(a.build()));

describe('consumeAtMost: property tests', () => {
  it('skips only the concurrency limit of the store algorithms', () => {
    expect(STORE_ALGORITHMS.filter((a) => !RATES.includes(a)).map((a) => a.name)).toEqual([
      'concurrency 3, leases of 1s',
    ]);
  });

  it.each(RATES.map((a) => [a.name, a] as const))(
    '%s: grants the largest n <= max that consume(n) admits, charging as consume(n)',
    async (_name, spec) => {
      const algorithm = spec.build();
      await fc.assert(
        fc.asyncProperty(opsArb(spec.scale, algorithm.limit), async (ops) => {
          let now = EPOCH;
          const store = new MemoryStore({ maxKeys: 8 });
          const limiter = new RateLimiter({ algorithm, store, clock: () => now });
          const key = `sl${algorithmKeyTag(algorithm)}:k`;
          for (const op of ops) {
            now += op.dt;
            const before = copyState(store.inspect(key));
            if (!op.atMost) {
              await limiter.consume('k', { cost: op.n });
              continue;
            }
            const d = await limiter.consumeAtMost('k', op.n);
            const after = copyState(store.inspect(key));
            const granted = probe(algorithm, before, now, op.n);
            expect(d.cost).toBe(granted);
            expect(d.allowed).toBe(granted > 0);
            if (granted > 0) {
              const step = algorithm.step(copyState(before), now, granted);
              expect(d).toEqual(step.decision);
              expect(after).toEqual(step.state);
              continue;
            }
            // None granted: nothing written (a penalty starts no block), and the wait is
            // the one-unit denial's (a block's remainder while blocked).
            expect(after).toEqual(before);
            const one = algorithm.step(copyState(before), now, 1).decision;
            const blockedNow = !algorithm.step(copyState(before), now, 0).decision.allowed;
            if (algorithm.inner === undefined || blockedNow) {
              expect(d).toEqual({ ...one, cost: 0 });
            } else {
              expect(d.retryAfterMs).toBe(
                algorithm.inner.step(innerOf(before), now, 1).decision.retryAfterMs,
              );
            }
            if (algorithm.inner === undefined) {
              // A client that waits retryAfterMs (rounded up to whole ms) gets 1 unit.
              const at = now + Math.ceil(d.retryAfterMs);
              expect(algorithm.step(copyState(before), at, 1).decision.allowed).toBe(true);
            }
          }
        }),
        { numRuns: Math.ceil(RUNS / 3) },
      );
    },
  );
});

/** The inner state of a penalty's state (see PenaltyAlgorithm: tag at 4, inner from 5). */
function innerOf(state: State | undefined): State | undefined {
  if (state === undefined) return undefined;
  const s = state as number[];
  return s[4] === 1 ? s[5] : s[4] === 2 ? s.slice(5) : undefined;
}
