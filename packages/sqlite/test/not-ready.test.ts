import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gcra, RateLimiter, StoreNotReadyError } from '@sluice/core';
import { EPOCH, expectOneNotReadyLine } from '@sluice/test-kit';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/index.js';

// The constructor creates the tables; a table dropped since (another process, a cleanup
// script) fails ready() and every decision naming migrate(), never silently.
let dir: string;
const open: Database.Database[] = [];

function database(file: string): Database.Database {
  const db = new Database(join(dir, file));
  open.push(db);
  return db;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-sqlite-ready-'));
});

afterAll(() => {
  for (const db of open) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteStore.ready()', () => {
  it('resolves on a fresh file: the constructor created the tables', async () => {
    const store = new SqliteStore({ database: database('fresh.db'), sweepIntervalMs: 0 });
    await expect(store.ready()).resolves.toBeUndefined();
  });

  it('rejects naming migrate() once the table is dropped; migrate() brings it back', async () => {
    const store = new SqliteStore({ database: database('dropped.db'), sweepIntervalMs: 0 });
    database('dropped.db').exec('DROP TABLE sluice_limits');
    const error = await store.ready().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreNotReadyError);
    expect((error as Error).message).toContain('store.migrate()');
    expect(() => store.consume('k', gcra({ rate: 1, period: '1m' }), 1, EPOCH)).toThrow(
      StoreNotReadyError,
    );
    expect(() => store.reset('k')).toThrow(StoreNotReadyError);
    store.migrate();
    await expect(store.ready()).resolves.toBeUndefined();
    expect(store.consume('k', gcra({ rate: 1, period: '1m' }), 1, EPOCH).allowed).toBe(true);
  });

  it('a decision on a dropped table logs one whole line naming migrate()', async () => {
    const store = new SqliteStore({ database: database('logged.db'), sweepIntervalMs: 0 });
    database('logged.db').exec('DROP TABLE sluice_limits');
    await expectOneNotReadyLine(store, 'run `store.migrate()`');
  });
});
