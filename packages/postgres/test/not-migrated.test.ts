import { gcra, RateLimiter, StoreNotReadyError } from '@sluice/core';
import {
  createPostgresDatabase,
  expectOneNotReadyLine,
  type PostgresDatabase,
} from '@sluice/test-kit';
import pg from 'pg';
import postgres from 'postgres';
import { PostgresStore } from '../src/index.js';

// A fresh database where nobody ran migrate(): start-up fails naming it, and requests are
// answered by onStoreError with one whole log line naming it.
let db: PostgresDatabase;
let pool: pg.Pool;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await createPostgresDatabase();
  pool = new pg.Pool({ ...db.config, max: 2 });
  sql = postgres(db.url, { max: 2, onnotice: () => {} });
}, 30_000);

afterAll(async () => {
  await pool?.end();
  await sql?.end();
  await db?.drop();
}, 30_000);

const clients = () =>
  [
    ['pg', pool],
    ['postgres.js', sql],
  ] as const;

describe('PostgresStore without migrate()', () => {
  it.each(['pg', 'postgres.js'])('%s: ready() rejects naming migrate()', async (kind) => {
    const client = clients().find(([k]) => k === kind)![1];
    const store = new PostgresStore({ client: client as pg.Pool, sweepIntervalMs: 0 });
    const error = await store.ready().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreNotReadyError);
    expect((error as Error).message).toContain('await store.migrate()');
    expect((error as Error).message).toContain('"public"."sluice_limits"');
  });

  it.each(['pg', 'postgres.js'])(
    '%s: decisions go to onStoreError, logged once in one whole line naming migrate()',
    async (kind) => {
      const client = clients().find(([k]) => k === kind)![1];
      const store = new PostgresStore({ client: client as pg.Pool, sweepIntervalMs: 0 });
      await expectOneNotReadyLine(store, 'run `await store.migrate()` once');
      await expect(store.reset('a')).rejects.toBeInstanceOf(StoreNotReadyError);
    },
  );

  it('ready() resolves once migrated, and the limiter decides on the database', async () => {
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0, table: 'later' });
    await expect(store.ready()).rejects.toThrow('"public"."later"');
    await store.migrate();
    await expect(store.ready()).resolves.toBeUndefined();
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 1, period: '1m' }), store });
    expect((await limiter.consume('b')).allowed).toBe(true);
    expect((await limiter.consume('b')).allowed).toBe(false);
  });

  it('a database migrated before consumeAtMost (no partial-grant function) is not ready', async () => {
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0, table: 'older' });
    await store.migrate();
    await pool.query(
      'DROP FUNCTION "public"."older_at_most"(text, float8[], float8, float8, float8[]) CASCADE',
    );
    await expect(store.ready()).rejects.toThrow('await store.migrate()');
    await store.migrate();
    await expect(store.ready()).resolves.toBeUndefined();
  });
});
