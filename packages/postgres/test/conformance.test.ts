import { join } from 'node:path';
import {
  createPostgresDatabase,
  describeStoreConformance,
  type PostgresDatabase,
} from '@sluice/test-kit';
import pg from 'pg';
import { PostgresStore } from '../src/index.js';

let db: PostgresDatabase;
let pool: pg.Pool;

describeStoreConformance({
  name: 'PostgresStore (pg)',
  async setup() {
    db = await createPostgresDatabase();
    pool = new pg.Pool({ ...db.config, max: 4 });
    await new PostgresStore({ client: pool, sweepIntervalMs: 0 }).migrate();
  },
  async teardown() {
    await pool?.end();
    await db?.drop();
  },
  clientClockStore: () =>
    new PostgresStore({ client: pool, clock: 'client', sweepIntervalMs: 0, timeoutMs: 30_000 }),
  workerModule: join(__dirname, 'store-module.ts'),
  workerEnv: () => ({ SLUICE_PG_URL: db.url }),
});
