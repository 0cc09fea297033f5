// The store a conformance worker process builds on node:sqlite (see node-sqlite.test.ts).
import { SqliteStore } from '../src/index.js';
import { nodeSqlite } from './node-sqlite.js';

let db: { close(): void } | undefined;

export async function createStore(): Promise<SqliteStore> {
  const DatabaseSync = nodeSqlite()!;
  const database = new DatabaseSync(process.env.SLUICE_SQLITE_FILE!);
  db = database;
  return new SqliteStore({ database, sweepIntervalMs: 0 });
}

export async function closeStore(): Promise<void> {
  db?.close();
}
