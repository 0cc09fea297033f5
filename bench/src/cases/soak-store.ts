// The store a soak worker builds (stores-soak.ts through test-kit's soak worker): SLUICE_SOAK_STORE
// `postgres` (on SLUICE_PG_URL) or `sqlite` (on SLUICE_SQLITE_FILE).
import type { Store } from '@sluice/core';
import { PostgresStore } from '@sluice/postgres';
import { SqliteStore } from '@sluice/sqlite';
import Database from 'better-sqlite3';
import pg from 'pg';

let close: () => Promise<void> = async () => {};

export async function createStore(): Promise<Store> {
  if (process.env.SLUICE_SOAK_STORE === 'postgres') {
    const pool = new pg.Pool({ connectionString: process.env.SLUICE_PG_URL, max: 4 });
    close = () => pool.end();
    return new PostgresStore({ client: pool, timeoutMs: 5000, sweepIntervalMs: 5000 });
  }
  const db = new Database(process.env.SLUICE_SQLITE_FILE!);
  close = async () => void db.close();
  return new SqliteStore({ database: db, sweepIntervalMs: 5000 });
}

export function closeStore(): Promise<void> {
  return close();
}
