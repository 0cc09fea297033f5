// consumeAtMost: the PL/pgSQL twin (`<table>_at_most`) == core's stepAtMost (MemoryStore) on
// random traces mixing charges and partial grants, for every algorithm that grants partly;
// and on the database clock, calls of one turn batched with consumes.
import { fixedWindow, RateLimiter } from '@sluice/core';
import { chargeTimeOf } from '@sluice/core/store';
import { createPostgresDatabase, itGrantsAsMemory, type PostgresDatabase } from '@sluice/test-kit';
import pg from 'pg';
import { PostgresStore } from '../src/index.js';

const RUNS = Number(process.env.SLUICE_DIFFERENTIAL_RUNS ?? 40);
let db: PostgresDatabase;
let pool: pg.Pool;
let store: PostgresStore;

beforeAll(async () => {
  db = await createPostgresDatabase();
  pool = new pg.Pool({ ...db.config, max: 2 });
  store = new PostgresStore({ client: pool, clock: 'client', sweepIntervalMs: 0 });
  await store.migrate();
}, 30_000);

afterAll(async () => {
  await store?.close();
  await pool?.end();
  await db?.drop();
}, 30_000);

describe('PostgresStore.consumeAtMost: the SQL twin == stepAtMost', () => {
  itGrantsAsMemory(() => store, RUNS, 60_000);

  it('on the database clock, in one turn with consumes: never more than the limit', async () => {
    const server = new PostgresStore({ client: pool, sweepIntervalMs: 0 });
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 10, window: '1m' }),
      store: server,
    });
    const [a, b, c] = await Promise.all([
      limiter.consume('batch', { cost: 3 }),
      limiter.consumeAtMost('batch', 5),
      limiter.consumeAtMost('batch', 5),
    ]);
    expect([a!.cost, b!.cost, c!.cost]).toEqual([3, 5, 2]);
    expect(chargeTimeOf(b!)).toEqual(expect.any(Number));
    expect(await limiter.consumeAtMost('batch', 1)).toMatchObject({ allowed: false, cost: 0 });
    await server.close();
  });
});
