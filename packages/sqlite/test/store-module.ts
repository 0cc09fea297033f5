// The store a conformance worker process builds (see @sluice/test-kit store-worker.ts): a
// SqliteStore on the file named by SLUICE_SQLITE_FILE, with the default busy timeout.
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/index.js';

const open: Database.Database[] = [];

function database(): Database.Database {
  const db = new Database(process.env.SLUICE_SQLITE_FILE!);
  open.push(db);
  return db;
}

export async function createStore(): Promise<SqliteStore> {
  return new SqliteStore({ database: database(), sweepIntervalMs: 0 });
}

/**
 * The soak's store, waiting up to 5 s for the lock: the soak saturates 4 processes in tight
 * loops on a shared 2-core machine and counts a busy error as a failure, and at the default
 * 250 ms a waiter sleeping in SQLite's busy handler lost the lock to the hot loops 2 and 7
 * times in ~11,500 decisions (failures a limiter answers by onStoreError: busy.test.ts).
 */
export async function soakStore(): Promise<SqliteStore> {
  return new SqliteStore({ database: database(), sweepIntervalMs: 0, busyTimeoutMs: 5000 });
}

export async function closeStore(): Promise<void> {
  for (const db of open) db.close();
}
