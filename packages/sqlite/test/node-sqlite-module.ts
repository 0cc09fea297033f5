// The store a conformance worker process builds on node:sqlite (see node-sqlite.test.ts),
// with the default busy timeout; the soak's waits up to 5 s (see store-module.ts).
import { SqliteStore } from '../src/index.js';
import { nodeSqlite } from './node-sqlite.js';

const open: { close(): void }[] = [];

function database() {
  const DatabaseSync = nodeSqlite()!;
  const db = new DatabaseSync(process.env.SLUICE_SQLITE_FILE!);
  open.push(db);
  return db;
}

export async function createStore(): Promise<SqliteStore> {
  return new SqliteStore({ database: database(), sweepIntervalMs: 0 });
}

export async function soakStore(): Promise<SqliteStore> {
  return new SqliteStore({ database: database(), sweepIntervalMs: 0, busyTimeoutMs: 5000 });
}

export async function closeStore(): Promise<void> {
  for (const db of open) db.close();
}
