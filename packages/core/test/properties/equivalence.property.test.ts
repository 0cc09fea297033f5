// leakyBucket({ capacity: C, leakRate: r }), tokenBucket({ capacity: C, refillRate: r }),
// cellThrottle(C - 1, r, 1) and gcra({ rate: r, period: 1000, burst: C }) are one GCRA:
// they decide identically, and exactly like the rational model, including at rates above
// 1000/s where the emission interval is a fraction of a millisecond.
import fc from 'fast-check';
import { cellThrottle, gcra, leakyBucket, tokenBucket } from '../../src/index.js';
import { drive, driveSteps, expectSameAsModel, RUNS, traceArb } from './harness.js';
import { type Decimal, decimalRatio, decimalValue, GcraModel, Ratio } from './models.js';

// Exactness is documented (gcra.ts) for emission intervals whose denominator in ms is at
// most 2048: T = 1000 / r ms is 2/3 ms at 1500/s, 1/2 at 2000/s, 1/3 at 3000/s, 1/5 at
// 5000/s, 1/10 at 10 000/s, 1/1000 at 1 000 000/s; 2000 ms at 0.5/s, 400 ms at 2.5/s.
// Other rates are drawn at random and kept only when inside that range.
const rateArb: fc.Arbitrary<Decimal> = fc
  .oneof(
    {
      arbitrary: fc.constantFrom<Decimal>(
        { digits: 1500, scale: 0 },
        { digits: 2000, scale: 0 },
        { digits: 3000, scale: 0 },
        { digits: 5000, scale: 0 },
        { digits: 10_000, scale: 0 },
        { digits: 1_000_000, scale: 0 },
        { digits: 5, scale: 1 }, // 0.5/s
        { digits: 25, scale: 1 }, // 2.5/s
      ),
      weight: 3,
    },
    {
      arbitrary: fc.record({
        digits: fc.integer({ min: 1, max: 50_000 }),
        scale: fc.integer({ min: 0, max: 2 }),
      }),
      weight: 2,
    },
  )
  .filter((r) => intervalOf(r).den <= 2048n);

function intervalOf(rate: Decimal): Ratio {
  return Ratio.of(1000).div(decimalRatio(rate));
}

const scenarioArb = fc
  .record({
    rate: rateArb,
    capacity: fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: 40 }), weight: 3 },
      { arbitrary: fc.integer({ min: 41, max: 5000 }), weight: 1 },
    ),
  })
  .chain((p) => {
    // Deltas at the scale of refilling half the bucket, so high rates see partial refills.
    const scale = Math.max(1, (intervalOf(p.rate).toNumber() * p.capacity) / 2);
    return traceArb(scale, p.capacity).map((steps) => ({ ...p, steps }));
  });

describe('GCRA family equivalence (leaky bucket, token bucket, CL.THROTTLE, gcra)', () => {
  it('decide identically on random traces and exactly like the rational model', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ rate, capacity, steps }) => {
        const r = decimalValue(rate);
        const leaky = leakyBucket({ capacity, leakRate: r });
        const family = [
          tokenBucket({ capacity, refillRate: r }),
          tokenBucket({ capacity, refillRate: r, refillInterval: '1s' }),
          cellThrottle(capacity - 1, r, 1),
          gcra({ rate: r, period: 1000, burst: capacity }),
        ];
        const reference = await drive(leaky, steps);
        expectSameAsModel(reference, new GcraModel(intervalOf(rate), capacity));
        const decisions = reference.map((o) => o.decision);
        for (const algorithm of family) {
          expect(driveSteps(algorithm, steps).map((o) => o.decision)).toEqual(decisions);
        }
        expect((await drive(family[0]!, steps)).map((o) => o.decision)).toEqual(decisions);
      }),
      { numRuns: RUNS },
    );
  });

  it('above 1000/s, a second of back-to-back requests admits what the model admits, within burst + 1000 / T', async () => {
    // From an idle key, back-to-back requests of `cost` at every ms for one second: the
    // admitted total over [t0, t0 + 1000] must be exactly what the model admits, and at most
    // burst + 1000 / T (the conformance bound), with no drift from rounding sub-ms intervals.
    const arb = fc.record({
      rate: rateArb.filter((r) => decimalValue(r) > 1000),
      capacity: fc.integer({ min: 1, max: 50 }),
      cost: fc.integer({ min: 1, max: 8 }),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ rate, capacity, cost }) => {
        const r = decimalValue(rate);
        const steps = Array.from({ length: 1001 }, (_, i) => ({ dt: i === 0 ? 0 : 1, cost }));
        const observed = driveSteps(leakyBucket({ capacity, leakRate: r }), steps);
        expectSameAsModel(observed, new GcraModel(intervalOf(rate), capacity));
        const units = observed.filter((o) => o.decision.allowed).length * cost;
        const T = intervalOf(rate);
        // units x T <= capacity x T + 1000
        expect(BigInt(units) * T.num <= BigInt(capacity) * T.num + 1000n * T.den).toBe(true);
      }),
      { numRuns: Math.ceil(RUNS / 5) },
    );
  });
});
