// The store a conformance worker process builds (see @sluice/test-kit store-worker.ts): a
// SqliteStore on the file named by SLUICE_SQLITE_FILE (busy timeout: SLUICE_SQLITE_BUSY_TIMEOUT_MS,
// else the default).
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/index.js';

let db: Database.Database | undefined;

export async function createStore(): Promise<SqliteStore> {
  db = new Database(process.env.SLUICE_SQLITE_FILE!);
  const busy = process.env.SLUICE_SQLITE_BUSY_TIMEOUT_MS;
  return new SqliteStore({
    database: db,
    sweepIntervalMs: 0,
    ...(busy === undefined ? {} : { busyTimeoutMs: Number(busy) }),
  });
}

export async function closeStore(): Promise<void> {
  db?.close();
}
