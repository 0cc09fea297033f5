// The store a conformance worker process builds (see @sluice/test-kit store-worker.ts): a
// PostgresStore on the database named by SLUICE_PG_URL, its default (server) clock.
import pg from 'pg';
import { PostgresStore } from '../src/index.js';

let pool: pg.Pool | undefined;

export async function createStore(): Promise<PostgresStore> {
  pool = new pg.Pool({ connectionString: process.env.SLUICE_PG_URL, max: 4 });
  return new PostgresStore({ client: pool, timeoutMs: 20_000, sweepIntervalMs: 0 });
}

export async function closeStore(): Promise<void> {
  await pool?.end();
}
