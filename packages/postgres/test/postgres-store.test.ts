import { fixedWindow, gcra, RateLimiter, SluiceConfigError, slidingLog } from '@sluice/core';
import { createPostgresDatabase, EPOCH, type PostgresDatabase } from '@sluice/test-kit';
import pg from 'pg';
import postgres from 'postgres';
import { PostgresStore } from '../src/index.js';

let db: PostgresDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createPostgresDatabase();
  pool = new pg.Pool({ ...db.config, max: 4 });
  await new PostgresStore({ client: pool }).migrate();
}, 30_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
}, 30_000);

describe('PostgresStore', () => {
  it('decides on the database clock by default, and a limit holds', async () => {
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0 });
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 2, period: '1m' }), store });
    const decisions = await Promise.all([1, 2, 3].map(() => limiter.consume('a')));
    expect(decisions.map((d) => d.allowed).sort()).toEqual([false, true, true]);
  });

  it('runs on postgres.js too', async () => {
    const sql = postgres(db.url, { max: 2, onnotice: () => {} });
    try {
      const store = new PostgresStore({ client: sql, sweepIntervalMs: 0 });
      const limiter = new RateLimiter({
        algorithm: slidingLog({ limit: 2, window: '1m' }),
        store,
        onStoreError: 'deny',
        logger: {
          warn: (m) => {
            throw new Error(m);
          },
        },
      });
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await limiter.consume('js'));
      expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
    } finally {
      await sql.end();
    }
  });

  it('client clock: decides at the time it is given', async () => {
    const store = new PostgresStore({ client: pool, clock: 'client', sweepIntervalMs: 0 });
    let now = EPOCH;
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 1, window: 1000 }),
      store,
      clock: () => now,
    });
    expect((await limiter.consume('c')).allowed).toBe(true);
    expect(await limiter.consume('c')).toMatchObject({ allowed: false, retryAfterMs: 1000 });
    now += 1000;
    expect((await limiter.consume('c')).allowed).toBe(true);
  });
});

describe('bad input', () => {
  it.each([
    [{ client: { query: () => {} } }, 'client'],
    [{ client: 'postgres://user:hunter2@db.example.com/app' }, 'client'],
    [{ client: pool_(), table: 'limits; DROP TABLE x' }, 'table'],
    [{ client: pool_(), schema: '1abc' }, 'schema'],
    [{ client: pool_(), clock: 'local' }, 'clock'],
    [{ client: pool_(), timeoutMs: 0 }, 'timeoutMs'],
  ])('%# names %s', (options, option) => {
    let error: unknown;
    try {
      new PostgresStore(options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as SluiceConfigError).option).toBe(option);
    expect((error as Error).message).not.toContain('hunter2');
  });
});

function pool_(): pg.Pool {
  return new pg.Pool({ host: '127.0.0.1' });
}
