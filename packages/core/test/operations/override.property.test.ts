// Overrides keep GCRA's TAT (docs/guide/operating.md): after lowering a rate r -> r/2 no window of one
// period after the override admits more than the new limit plus its burst; after raising,
// the next decision already uses the new limit. Random traffic, an injected clock.
import { EPOCH } from '@sluice/test-kit';
import fc from 'fast-check';
import { gcra, LimitOperations, MemoryStore, RateLimiter } from '../../src/index.js';

const PERIOD = 60_000;

const scenario = fc.record({
  half: fc.integer({ min: 1, max: 30 }),
  before: fc.array(fc.integer({ min: 0, max: 4000 }), { maxLength: 80 }),
  after: fc.array(fc.integer({ min: 0, max: 4000 }), { minLength: 1, maxLength: 200 }),
});

async function run(
  r: number,
  newRate: number,
  before: number[],
  after: number[],
): Promise<{ times: number[]; limits: number[] }> {
  const time = { now: EPOCH };
  const clock = () => time.now;
  const store = new MemoryStore();
  const limiter = new RateLimiter({
    algorithm: gcra({ rate: r, period: PERIOD, burst: r }),
    store,
    clock,
  });
  const ops = new LimitOperations({ store, clock });
  for (const gap of before) {
    time.now += gap;
    await limiter.consume('k');
  }
  await ops.override({ key: 'k' }, `${newRate}/1m`, { for: '1d' });
  const times: number[] = [];
  const limits: number[] = [];
  for (const gap of after) {
    const d = await limiter.consume('k');
    limits.push(d.limit);
    if (d.allowed) times.push(time.now);
    time.now += gap;
  }
  return { times, limits };
}

describe('override of a GCRA limit', () => {
  it('lowering r -> r/2: no window of one period after it admits more than r/2 + its burst (r/2)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ half, before, after }) => {
        const { times, limits } = await run(2 * half, half, before, after);
        expect(limits.every((l) => l === half)).toBe(true);
        for (let i = 0; i < times.length; i++) {
          let inWindow = 0;
          for (let j = i; j < times.length && times[j]! < times[i]! + PERIOD; j++) inWindow++;
          expect(inWindow).toBeLessThanOrEqual(half + half);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('raising r -> 2r: the next decision uses the new limit', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ half, before, after }) => {
        const { limits } = await run(half, 2 * half, before, after);
        expect(limits[0]).toBe(2 * half);
      }),
      { numRuns: 100 },
    );
  });
});
