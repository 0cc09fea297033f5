// Differential test: for every algorithm, random request traces give identical decisions
// (deep-equal Decision objects) on MemoryStore (the TypeScript step) and on
// RedisStore({ clock: 'client' }) (the Lua twin), at realistic epoch times.
import { type Decision, MemoryStore, RateLimiter } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { EPOCH, type RedisProcess, startRedis } from '@sluice/test-kit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';
import { type AlgorithmSpec, buildAlgorithm, specLabel } from './algorithm-specs.js';

const RUNS = Number(process.env.SLUICE_DIFFERENTIAL_RUNS ?? 200);
/** A year as the `ms` package counts it ('1y'): 365.25 days. */
const YEAR_MS = 31_557_600_000;

let server: RedisProcess;
let client: Redis;
let redisStore: RedisStore;
const memoryStore = new MemoryStore({ maxKeys: 1_000_000 });

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ port: server.port, host: '127.0.0.1' });
  redisStore = new RedisStore({ client, clock: 'client', timeoutMs: 5000 });
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

interface Step {
  /** ms since the previous request (0 = same instant). */
  dt: number;
  /** units asked for (0 = peek; above the limit = can never succeed). */
  cost: number;
}

/** Deltas at the algorithm's time scale: bursts (0), tiny steps, around the scale, idles. */
function deltaArb(scale: number): fc.Arbitrary<number> {
  const s = Math.max(1, Math.ceil(scale));
  return fc.oneof(
    { arbitrary: fc.constant(0), weight: 4 },
    { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 2 },
    { arbitrary: fc.integer({ min: 0, max: s }), weight: 4 },
    { arbitrary: fc.integer({ min: 1, max: 3 }).map((k) => k * s), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 5 * s }), weight: 1 },
  );
}

/** Costs: peeks, single units, up to the limit, the limit, and above it. */
function costArb(limit: number): fc.Arbitrary<number> {
  return fc.oneof(
    { arbitrary: fc.constant(0), weight: 2 },
    { arbitrary: fc.constant(1), weight: 6 },
    { arbitrary: fc.integer({ min: 0, max: limit }), weight: 2 },
    { arbitrary: fc.constant(limit), weight: 1 },
    { arbitrary: fc.integer({ min: limit + 1, max: limit + 3 }), weight: 1 },
  );
}

function traceArb(scale: number, limit: number): fc.Arbitrary<{ start: number; steps: Step[] }> {
  return fc.record({
    // Any ms of a day, so epoch-aligned windows are hit at every phase.
    start: fc.integer({ min: 0, max: 86_400_000 }),
    steps: fc.array(fc.record({ dt: deltaArb(scale), cost: costArb(limit) }), {
      minLength: 1,
      maxLength: 40,
    }),
  });
}

interface Case {
  spec: AlgorithmSpec;
  /** The time scale of the algorithm in ms (emission interval or window). */
  scale: number;
}

const CASES: Case[] = [
  { spec: { factory: 'gcra', args: [{ rate: 10, period: '1s' }] }, scale: 100 },
  { spec: { factory: 'gcra', args: [{ rate: 7, period: '1m', burst: 3 }] }, scale: 60_000 / 7 },
  // 3000/s: emission interval 1/3 ms, decisions carry fractions of a ms.
  { spec: { factory: 'gcra', args: [{ rate: 3000, period: '1s', burst: 20 }] }, scale: 2 },
  { spec: { factory: 'gcra', args: [{ rate: 3000, period: '1s' }] }, scale: 2 },
  { spec: { factory: 'cellThrottle', args: [4, 3, 2] }, scale: 667 },
  { spec: { factory: 'cellThrottle', args: [0, 1, 1] }, scale: 1000 },
  // Fractional leak rates: T = 1000 / 0.3 ms and 1000 / 2.5 ms.
  { spec: { factory: 'leakyBucket', args: [{ capacity: 5, leakRate: 0.3 }] }, scale: 3334 },
  { spec: { factory: 'leakyBucket', args: [{ capacity: 15, leakRate: 2.5 }] }, scale: 400 },
  {
    spec: { factory: 'tokenBucket', args: [{ capacity: 8, refillRate: 3, refillInterval: '1s' }] },
    scale: 334,
  },
  {
    spec: { factory: 'tokenBucket', args: [{ capacity: 4, refillRate: 7, refillInterval: 90 }] },
    scale: 13,
  },
  // Rates of any size, exact: '100/h' and 100 / 3600 (T = 36 000 ms), 1 per year
  // (T = 31 557 600 000 ms), 1e7 per second (T = 1/10 000 ms: 10 000 ticks per ms).
  { spec: { factory: 'leakyBucket', args: [{ capacity: 7, leakRate: '100/h' }] }, scale: 36_000 },
  {
    spec: { factory: 'leakyBucket', args: [{ capacity: 4, leakRate: 100 / 3600 }] },
    scale: 36_000,
  },
  {
    spec: { factory: 'tokenBucket', args: [{ capacity: 5, refillRate: '100/hour' }] },
    scale: 36_000,
  },
  { spec: { factory: 'leakyBucket', args: [{ capacity: 3, leakRate: '1/y' }] }, scale: YEAR_MS },
  {
    spec: { factory: 'tokenBucket', args: [{ capacity: 2, refillRate: 1 / 31_557_600 }] },
    scale: YEAR_MS,
  },
  { spec: { factory: 'leakyBucket', args: [{ capacity: 50, leakRate: 1e7 }] }, scale: 1 },
  {
    spec: { factory: 'tokenBucket', args: [{ capacity: 30_000, refillRate: '10000000/s' }] },
    scale: 3,
  },
  { spec: { factory: 'fixedWindow', args: [{ limit: 5, window: 1000 }] }, scale: 1000 },
  { spec: { factory: 'fixedWindow', args: [{ limit: 3, window: '1m' }] }, scale: 60_000 },
  { spec: { factory: 'slidingWindow', args: [{ limit: 5, window: 1000 }] }, scale: 1000 },
  { spec: { factory: 'slidingWindow', args: [{ limit: 7, window: 3001 }] }, scale: 3001 },
  { spec: { factory: 'slidingLog', args: [{ limit: 5, window: 1000 }] }, scale: 1000 },
  { spec: { factory: 'slidingLog', args: [{ limit: 9, window: 777 }] }, scale: 777 },
];

let traceId = 0;

/** Runs one trace on a fresh key through both stores; returns both decision lists. */
async function runTrace(
  algorithm: Algorithm,
  start: number,
  steps: Step[],
): Promise<{ memory: Decision[]; redis: Decision[] }> {
  let now = EPOCH + start;
  const clock = () => now;
  const prefix = `diff:${traceId++}`;
  const onMemory = new RateLimiter({ algorithm, store: memoryStore, prefix, clock });
  const onRedis = new RateLimiter({
    algorithm,
    store: redisStore,
    prefix,
    clock,
    // A Redis failure must fail the test, not be decided by a fallback.
    onStoreError: 'deny',
    logger: {
      warn: (message) => {
        throw new Error(message);
      },
    },
  });
  const memory: Decision[] = [];
  const redis: Decision[] = [];
  for (const step of steps) {
    now += step.dt;
    memory.push(await onMemory.consume('k', { cost: step.cost }));
    redis.push(await onRedis.consume('k', { cost: step.cost }));
  }
  return { memory, redis };
}

describe.each(CASES)(
  'MemoryStore and RedisStore decide alike: $spec.factory',
  ({ spec, scale }) => {
    const algorithm = buildAlgorithm(spec);
    it(`${specLabel(spec)}: ${RUNS} random traces`, async () => {
      let allowed = 0;
      let denied = 0;
      await fc.assert(
        fc.asyncProperty(traceArb(scale, algorithm.limit), async ({ start, steps }) => {
          const { memory, redis } = await runTrace(algorithm, start, steps);
          expect(redis).toStrictEqual(memory);
          for (const d of memory) {
            if (d.allowed) allowed++;
            else denied++;
          }
        }),
        { numRuns: RUNS },
      );
      // The traces reach both outcomes (otherwise the comparison proves little).
      expect(allowed).toBeGreaterThan(RUNS);
      expect(denied).toBeGreaterThan(RUNS / 4);
    });
  },
);

describe('directed traces', () => {
  it.each([
    ['leakyBucket', { capacity: 1000, leakRate: '1/y' }],
    ['tokenBucket', { capacity: 1000, refillRate: 1 / 31_557_600 }],
    ['gcra', { rate: 1, period: '1y', burst: 1000 }],
  ] as const)(
    '1 per year, %s filled for 1000 years, agrees to the ms',
    async (factory, options) => {
      const algorithm = buildAlgorithm({ factory, args: [options] });
      const steps: Step[] = [
        { dt: 0, cost: 1000 },
        { dt: YEAR_MS - 1, cost: 1 },
        { dt: 1, cost: 1 },
        { dt: 0, cost: 1 },
        { dt: 0, cost: 0 },
      ];
      const { memory, redis } = await runTrace(algorithm, 0, steps);
      expect(redis).toStrictEqual(memory);
      expect(memory.map((d) => d.allowed)).toEqual([true, false, true, false, true]);
      expect(memory[1]!.retryAfterMs).toBe(1);
      expect(memory[4]!.resetAfterMs).toBe(1000 * YEAR_MS);
    },
  );

  it('3000/s with sub-ms retry and reset times agrees on every fraction', async () => {
    const algorithm = buildAlgorithm({ factory: 'gcra', args: [{ rate: 3000, period: '1s' }] });
    const steps: Step[] = [
      { dt: 0, cost: 3000 },
      { dt: 0, cost: 1 },
      { dt: 1, cost: 1 },
      { dt: 0, cost: 4 },
      { dt: 0, cost: 0 },
    ];
    const { memory, redis } = await runTrace(algorithm, 0, steps);
    expect(redis).toStrictEqual(memory);
    // Fractions really occur: 1/3 ms after the burst.
    expect(memory[1]!.retryAfterMs).toBeCloseTo(1 / 3, 12);
  });

  it('a sliding log with a large limit admits a large cost in one call', async () => {
    const algorithm = buildAlgorithm({
      factory: 'slidingLog',
      args: [{ limit: 20_000, window: '1m' }],
    });
    const steps: Step[] = [
      { dt: 0, cost: 9000 },
      { dt: 1, cost: 10_000 },
      { dt: 0, cost: 1001 },
      { dt: 0, cost: 1000 },
      { dt: 0, cost: 0 },
      { dt: 30_000, cost: 1 },
      { dt: 29_999, cost: 1 },
      { dt: 0, cost: 9000 },
      { dt: 0, cost: 8999 },
      { dt: 1, cost: 11_000 },
      { dt: 0, cost: 1 },
    ];
    const { memory, redis } = await runTrace(algorithm, 0, steps);
    expect(redis).toStrictEqual(memory);
    expect(memory.map((d) => d.allowed)).toEqual([
      true,
      true,
      false,
      true,
      true,
      false,
      true,
      false,
      true,
      true,
      false,
    ]);
  });
});
