// Differential test of Limit#costAfter's settle: on random traces of charges, give-backs
// and charges past the limit (a refund with a negative cost: a debt), MemoryStore (the TS
// `refund`) and RedisStore({ clock: 'client' }) (the Lua `<twin>_refund`) give deep-equal
// decisions, on every algorithm that can carry a debt.
import { type Decision, fixedWindow, gcra, MemoryStore } from '@sluice/core';
import { type Algorithm, calendarQuota } from '@sluice/core/store';
import { EPOCH, type RedisProcess, startRedis } from '@sluice/test-kit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

const RUNS = Number(process.env.SLUICE_DIFFERENTIAL_RUNS ?? 100);

let server: RedisProcess;
let client: Redis;
let redis: RedisStore;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ port: server.port, host: '127.0.0.1' });
  redis = new RedisStore({ client, clock: 'client', timeoutMs: 5000 });
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

const CASES: { label: string; algorithm: Algorithm; scale: number }[] = [
  { label: 'gcra 10/s', algorithm: gcra({ rate: 10, period: '1s' }), scale: 100 },
  {
    label: 'gcra 7/min burst 3',
    algorithm: gcra({ rate: 7, period: '1m', burst: 3 }),
    scale: 8571,
  },
  { label: 'gcra 3000/s', algorithm: gcra({ rate: 3000, period: '1s' }), scale: 1 },
  { label: 'fixed window 5/10s', algorithm: fixedWindow({ limit: 5, window: '10s' }), scale: 2000 },
  {
    label: 'calendar day Lord Howe',
    algorithm: calendarQuota(5, {
      unit: 'day',
      timeZone: 'Australia/Lord_Howe',
      weekStart: 1,
      anchorDay: 1,
    }),
    scale: 3_600_000,
  },
];

type Op = { dt: number; kind: 'consume' | 'settle'; cost: number; units: number };

let run = 0;

describe.each(CASES)('settle: memory ≡ Redis ($label)', ({ algorithm, scale }) => {
  it('charges, give-backs and debts agree', async () => {
    const opArb: fc.Arbitrary<Op> = fc.record({
      dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 * scale })),
      kind: fc.constantFrom('consume' as const, 'settle' as const),
      cost: fc.integer({ min: 0, max: 4 }),
      units: fc.integer({ min: 0, max: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 86_400_000 }),
        fc.array(opArb, { minLength: 1, maxLength: 30 }),
        async (start, ops) => {
          const memory = new MemoryStore();
          const key = `settle:${run++}`;
          let now = EPOCH + start;
          const charges: { at: number; cost: number }[] = [];
          for (const op of ops) {
            now += op.dt;
            let m: Decision;
            let r: Decision;
            if (op.kind === 'settle' && charges.length > 0) {
              // Settle the oldest charge to `units`: give back (> 0) or charge past (< 0).
              const c = charges.shift()!;
              const amount = c.cost - op.units;
              m = memory.refund(key, algorithm, amount, now, c.at);
              r = await redis.refund(key, algorithm, amount, now, c.at);
            } else {
              m = memory.consume(key, algorithm, op.cost, now);
              r = await redis.consume(key, algorithm, op.cost, now);
              if (m.allowed) charges.push({ at: now, cost: op.cost });
            }
            expect(r).toEqual(m);
            expect(m.remaining).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
