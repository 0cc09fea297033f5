// GCRA (gcra, cellThrottle): conformance, equality with the exact rational model,
// exact retryAfterMs / resetAfterMs / remaining, and denials consuming nothing.
import fc from 'fast-check';
import { cellThrottle, gcra } from '../../src/index.js';
import {
  admitted,
  checkDecisionInvariants,
  drive,
  expectSameAsModel,
  itHasExactTimes,
  type Observed,
  RUNS,
  traceArb,
} from './harness.js';
import { type Decimal, decimalRatio, decimalValue, GcraModel, Ratio } from './models.js';

// The engine is exact while the emission interval in ms has a denominator of at most 2048
// (its documented range: gcra.ts), so the parameters are drawn inside that range.
const MAX_DENOMINATOR = 2048n;

interface GcraCase {
  rate: Decimal;
  periodMs: number;
  burst: number | undefined;
}

const decimalArb: fc.Arbitrary<Decimal> = fc.oneof(
  fc.record({ digits: fc.integer({ min: 1, max: 120 }), scale: fc.constant(0) }),
  fc.record({ digits: fc.integer({ min: 1, max: 5000 }), scale: fc.integer({ min: 0, max: 2 }) }),
  fc.record({
    digits: fc.constantFrom(1500, 2000, 3000, 5000, 10_000, 1_000_000),
    scale: fc.constant(0),
  }),
);

const periodArb = fc.oneof(
  fc.constantFrom(1, 1000, 60_000, 3_600_000),
  fc.integer({ min: 1, max: 100_000 }),
);

function emissionInterval(c: GcraCase): Ratio {
  return Ratio.of(c.periodMs).div(decimalRatio(c.rate));
}

function burstOf(c: GcraCase): number {
  return c.burst ?? Math.max(1, Math.floor(decimalValue(c.rate)));
}

const caseArb: fc.Arbitrary<GcraCase> = fc
  .record({
    rate: decimalArb,
    periodMs: periodArb,
    burst: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
  })
  .filter((c) => {
    const T = emissionInterval(c);
    return T.den <= MAX_DENOMINATOR && burstOf(c) <= 5000;
  });

const scenarioArb = caseArb.chain((c) =>
  traceArb(Math.max(1, emissionInterval(c).toNumber()), burstOf(c)).map((steps) => ({
    c,
    steps,
  })),
);

function build(c: GcraCase) {
  const rate = decimalValue(c.rate);
  return gcra(
    c.burst === undefined
      ? { rate, period: c.periodMs }
      : { rate, period: c.periodMs, burst: c.burst },
  );
}

/**
 * GCRA conformance: the units admitted in any interval [t1, t2] are at most
 * burst + (t2 - t1) / T. Checked exactly (BigInt) over every pair of admission times.
 */
function expectConforming(observed: readonly Observed[], T: Ratio, burst: number): void {
  const hits = admitted(observed);
  for (let i = 0; i < hits.length; i++) {
    let units = 0n;
    for (let j = i; j < hits.length; j++) {
      units += BigInt(hits[j]!.cost);
      const span = BigInt(hits[j]!.t - hits[i]!.t);
      // units <= burst + span / T  <=>  units x T.num <= burst x T.num + span x T.den
      if (units * T.num > BigInt(burst) * T.num + span * T.den) {
        throw new Error(
          `${units} units admitted in [${hits[i]!.t}, ${hits[j]!.t}] with T = ${T} ms, burst ${burst}`,
        );
      }
    }
  }
}

describe('gcra: property tests', () => {
  it('never admits more than burst + (t2 - t1) / T in any interval', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ c, steps }) => {
        const observed = await drive(build(c), steps);
        expectConforming(observed, emissionInterval(c), burstOf(c));
      }),
      { numRuns: RUNS },
    );
  });

  it('decides exactly like the rational GCRA model (allowed, remaining, retry, reset)', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ c, steps }) => {
        const observed = await drive(build(c), steps);
        expectSameAsModel(observed, GcraModel.fromRate(c.rate, c.periodMs, burstOf(c)));
      }),
      { numRuns: RUNS },
    );
  });

  itHasExactTimes(scenarioArb, ({ c }) => build(c));

  it('cellThrottle(maxBurst, count, period s) is GCRA with T = period / count, burst maxBurst + 1', async () => {
    const cellArb = fc
      .record({
        maxBurst: fc.integer({ min: 0, max: 30 }),
        count: decimalArb,
        periodSeconds: fc.constantFrom(1, 2, 60, 3600),
      })
      .filter(({ count, periodSeconds }) => {
        const T = Ratio.of(periodSeconds * 1000).div(decimalRatio(count));
        return T.den <= MAX_DENOMINATOR;
      })
      .chain((p) => {
        const T = Ratio.of(p.periodSeconds * 1000).div(decimalRatio(p.count));
        return traceArb(Math.max(1, T.toNumber()), p.maxBurst + 1).map((steps) => ({
          p,
          T,
          steps,
        }));
      });
    await fc.assert(
      fc.asyncProperty(cellArb, async ({ p, T, steps }) => {
        const algorithm = cellThrottle(p.maxBurst, decimalValue(p.count), p.periodSeconds);
        const observed = await drive(algorithm, steps);
        expectSameAsModel(observed, new GcraModel(T, p.maxBurst + 1));
        expectConforming(observed, T, p.maxBurst + 1);
        checkDecisionInvariants(algorithm, observed);
      }),
      { numRuns: RUNS },
    );
  });
});
