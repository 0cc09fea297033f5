import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreNotReadyError } from '@sluice/core';
import { PostgresStore } from '@sluice/postgres';
import { SqliteStore } from '@sluice/sqlite';
import { createPostgresDatabase, type PostgresDatabase } from '@sluice/test-kit';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { rateLimit } from '../src/index.js';

// A store that cannot decide fails `app.ready()`, naming the fix, instead of every
// request being answered by onStoreError.
let db: PostgresDatabase;
let pool: pg.Pool;
let dir: string;

beforeAll(async () => {
  db = await createPostgresDatabase();
  pool = new pg.Pool({ ...db.config, max: 2 });
  dir = mkdtempSync(join(tmpdir(), 'sluice-fastify-ready-'));
}, 30_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

async function readyError(app: ReturnType<typeof Fastify>): Promise<unknown> {
  try {
    await app.ready();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await app.close();
  }
}

describe('app.ready() checks the store', () => {
  it('a PostgresStore never migrated (plugin limit) fails ready() naming migrate()', async () => {
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0 });
    const app = Fastify();
    await app.register(rateLimit, { limit: '2/min', store });
    app.get('/', async () => 'ok');
    const error = await readyError(app);
    expect(error).toBeInstanceOf(StoreNotReadyError);
    expect((error as Error).message).toContain('await store.migrate()');
  });

  it('a route limit on a SqliteStore whose table was dropped fails ready()', async () => {
    const file = join(dir, 'limits.db');
    const database = new Database(file);
    const store = new SqliteStore({ database, sweepIntervalMs: 0 });
    new Database(file).exec('DROP TABLE sluice_limits');
    const app = Fastify();
    await app.register(rateLimit, { global: false });
    app.get('/', { config: { rateLimit: { limit: '2/min', store } } }, async () => 'ok');
    const error = await readyError(app);
    database.close();
    expect(error).toBeInstanceOf(StoreNotReadyError);
    expect((error as Error).message).toContain('store.migrate()');
  });

  it('a migrated PostgresStore starts and limits', async () => {
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0, table: 'migrated' });
    await store.migrate();
    const app = Fastify();
    await app.register(rateLimit, { limit: '1/min', store });
    app.get('/', async () => 'ok');
    await app.ready();
    const codes = [];
    for (let i = 0; i < 2; i++) codes.push((await app.inject({ url: '/' })).statusCode);
    await app.close();
    expect(codes).toEqual([200, 429]);
  });
});
