// Calendar quotas on Redis: the Lua twin (given the edges computed in TypeScript) decides
// and gives back exactly as the TypeScript step on the memory store, at every edge, across
// DST, +5:45, 29 February and anchor days 29–31.
import { type Decision, MemoryStore } from '@sluice/core';
import { type CalendarPeriod, calendarEdges, calendarQuota } from '@sluice/core/store';
import { type RedisProcess, startRedis } from '@sluice/test-kit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

const RUNS = Number(process.env.SLUICE_DIFFERENTIAL_RUNS ?? 100);
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu'];
const FROM = Date.UTC(2023, 0, 1);
const TO = Date.UTC(2029, 0, 1);

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

const periodArb: fc.Arbitrary<CalendarPeriod> = fc.record({
  unit: fc.constantFrom('day' as const, 'week' as const, 'month' as const),
  timeZone: fc.constantFrom(...ZONES),
  weekStart: fc.integer({ min: 1, max: 7 }),
  anchorDay: fc.oneof(fc.integer({ min: 1, max: 31 }), fc.integer({ min: 29, max: 31 })),
});

/** An operation at an offset from an edge: a charge, a peek, or a give-back of a charge. */
interface Op {
  edge: number;
  offset: number;
  cost: number;
  refund: boolean;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  edge: fc.integer({ min: 0, max: 2 }),
  offset: fc.oneof(
    fc.constantFrom(-1000, -1, 0, 1, 1000),
    fc.integer({ min: -3_600_000, max: 3_600_000 }),
  ),
  cost: fc.oneof(fc.constant(1), fc.integer({ min: 0, max: 4 })),
  refund: fc.boolean(),
});

let run = 0;

describe('calendar quota: memory ≡ Redis at every edge', () => {
  it('decisions and give-backs agree on the TypeScript step and the Lua twin', async () => {
    await fc.assert(
      fc.asyncProperty(
        periodArb,
        fc.integer({ min: FROM, max: TO }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(opArb, { minLength: 1, maxLength: 25 }),
        async (p, t, limit, ops) => {
          const algorithm = calendarQuota(limit, p);
          const memory = new MemoryStore();
          const key = `cal:${run++}`;
          const edges = calendarEdges(p, t).slice(1);
          // Times in order, so each store sees a clock that moves forward.
          const timed = ops
            .map((op) => ({ ...op, at: edges[op.edge]! + op.offset }))
            .sort((a, b) => a.at - b.at);
          const charges: number[] = [];
          for (const op of timed) {
            let m: Decision;
            let r: Decision;
            if (op.refund && charges.length > 0) {
              const at = charges.shift()!;
              m = memory.refund(key, algorithm, op.cost, op.at, at);
              r = await redis.refund(key, algorithm, op.cost, op.at, at);
            } else {
              m = memory.consume(key, algorithm, op.cost, op.at);
              r = await redis.consume(key, algorithm, op.cost, op.at);
              if (m.allowed && op.cost > 0) charges.push(op.at);
            }
            expect({ at: op.at, ...r }).toEqual({ at: op.at, ...m });
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);

  it("with Redis TIME the window is the server's: a full quota is denied until the next edge", async () => {
    const store = new RedisStore({ client, timeoutMs: 5000 });
    const p: CalendarPeriod = {
      unit: 'day',
      timeZone: 'Asia/Kathmandu',
      weekStart: 1,
      anchorDay: 1,
    };
    const algorithm = calendarQuota(2, p);
    const now = Date.now();
    const [, end] = calendarEdges(p, now).slice(1) as [number, number];
    expect((await store.consume('cal:server', algorithm, 2, now)).allowed).toBe(true);
    const denied = await store.consume('cal:server', algorithm, 1, now);
    expect(denied.allowed).toBe(false);
    // The server's clock and this one agree within a second on this machine.
    expect(Math.abs(denied.retryAfterMs - (end - now))).toBeLessThan(1000);
  });
});
