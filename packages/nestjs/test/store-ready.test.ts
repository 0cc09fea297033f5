import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { StoreNotReadyError } from '@sluice/core';
import { PostgresStore } from '@sluice/postgres';
import { createPostgresDatabase, type PostgresDatabase } from '@sluice/test-kit';
import pg from 'pg';
import { SluiceModule, Throttle } from '../src/index.js';
import { startNest } from './harness.js';

// A store that cannot decide fails the module's init (the application's start), naming
// the fix, instead of every request being answered by onStoreError.
let db: PostgresDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createPostgresDatabase();
  pool = new pg.Pool({ ...db.config, max: 2 });
}, 30_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
}, 30_000);

@Controller('r')
class Routes {
  @Get('a')
  a() {
    return 'a';
  }
}

describe('SluiceModule init checks the store', () => {
  it('a PostgresStore never migrated (module store) fails the start naming migrate()', async () => {
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0 });
    @Module({ imports: [SluiceModule.forRoot({ limit: '2/min', store })], controllers: [Routes] })
    class AppModule {}
    const error = await startNest('express', AppModule).then(
      async (app) => {
        await app.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreNotReadyError);
    expect((error as Error).message).toContain('await store.migrate()');
  });

  it('a @Throttle store never migrated fails the start too', async () => {
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0, table: 'own' });
    @Controller('t')
    class Throttled {
      @Get('b')
      @Throttle('1/min', { store })
      b() {
        return 'b';
      }
    }
    @Module({ imports: [SluiceModule.forRoot({ limit: false })], controllers: [Throttled] })
    class AppModule {}
    await expect(startNest('express', AppModule)).rejects.toThrow(/"public"\."own".*migrate\(\)/);
  });

  it('a migrated PostgresStore starts', async () => {
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0, table: 'migrated' });
    await store.migrate();
    @Module({ imports: [SluiceModule.forRoot({ limit: '2/min', store })], controllers: [Routes] })
    class AppModule {}
    const app = await startNest('express', AppModule);
    await app.close();
  });
});
