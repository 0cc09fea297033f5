import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedWindow, gcra, RateLimiter, SluiceConfigError } from '@sluice/core';
import { EPOCH } from '@sluice/test-kit';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/index.js';

let dir: string;
const open: Database.Database[] = [];

function database(name = 'limits.db', options?: Database.Options): Database.Database {
  const db = new Database(join(dir, name), options);
  open.push(db);
  return db;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-sqlite-'));
});

afterAll(() => {
  for (const db of open) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteStore', () => {
  it('answers synchronously: a decision, never a promise', () => {
    const store = new SqliteStore({ database: database(), sweepIntervalMs: 0 });
    const algorithm = gcra({ rate: 2, period: '1m' });
    const first = store.consume('sync', algorithm, 1, EPOCH);
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toMatchObject({ allowed: true, remaining: 1 });
    const all = store.consumeAll(
      [
        { key: 'sync', algorithm, cost: 1 },
        { key: 'other', algorithm, cost: 1 },
      ],
      EPOCH,
    );
    expect(Array.isArray(all)).toBe(true);
    expect(all.map((d) => d.allowed)).toEqual([true, true]);
    expect(store.consume('sync', algorithm, 1, EPOCH).allowed).toBe(false);
    expect(store.reset('sync')).toBeUndefined();
    expect(store.consume('sync', algorithm, 1, EPOCH).allowed).toBe(true);
  });

  it("stays promise-free behind a limiter's store-failure policy", () => {
    const store = new SqliteStore({ database: database('guarded.db'), sweepIntervalMs: 0 });
    const algorithm = gcra({ rate: 1, period: '1m' });
    // The limiter wraps every store but a MemoryStore in its onStoreError policy: that
    // wrapper hands a synchronous answer on as it is (the HTTP pipeline decides in one tick).
    const guarded = new RateLimiter({ algorithm, store }).store;
    expect(guarded).not.toBe(store);
    const first = guarded.consume('k', algorithm, 1, EPOCH);
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toMatchObject({ allowed: true });
    const all = guarded.consumeAll?.([{ key: 'k', algorithm, cost: 1 }], EPOCH);
    expect(Array.isArray(all)).toBe(true);
    expect((all as { allowed: boolean }[])[0]!.allowed).toBe(false);
  });

  it('switches the database to WAL with a busy timeout', () => {
    const db = database('wal.db');
    new SqliteStore({ database: db, busyTimeoutMs: 1234, sweepIntervalMs: 0 });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(1234);
  });

  it('two connections to one file share the limit', () => {
    const a = new SqliteStore({ database: database('shared.db'), sweepIntervalMs: 0 });
    const b = new SqliteStore({ database: database('shared.db'), sweepIntervalMs: 0 });
    const algorithm = fixedWindow({ limit: 3, window: '1m' });
    const allowed = [a, b, a, b, a].map((s) => s.consume('k', algorithm, 1, EPOCH).allowed);
    expect(allowed).toEqual([true, true, true, false, false]);
  });

  it('sweeps expired rows in bounded passes, keeping live ones', () => {
    const db = database('sweep.db');
    const store = new SqliteStore({ database: db, sweepIntervalMs: 0, sweepBatch: 7 });
    const algorithm = fixedWindow({ limit: 1, window: 60_000 });
    for (let i = 0; i < 50; i++) store.consume(`old${i}`, algorithm, 1, EPOCH);
    for (let i = 0; i < 20; i++) store.consume(`new${i}`, algorithm, 1, EPOCH + 120_000);
    expect(store.sweep()).toBe(50);
    const rows = db.prepare('SELECT count(*) AS n FROM sluice_limits').get() as { n: number };
    expect(rows.n).toBe(20);
    expect(store.consume('new0', algorithm, 1, EPOCH + 120_001).allowed).toBe(false);
  });

  it('decides through a RateLimiter', async () => {
    const store = new SqliteStore({ database: database(), sweepIntervalMs: 0 });
    let now = EPOCH;
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 1, window: 1000 }),
      store,
      clock: () => now,
      prefix: 'rl',
    });
    expect((await limiter.consume('x')).allowed).toBe(true);
    expect((await limiter.consume('x')).allowed).toBe(false);
    now += 1000;
    expect((await limiter.consume('x')).allowed).toBe(true);
  });
});

describe('bad input', () => {
  it('a database opened read-only is a SluiceConfigError naming database', () => {
    database('ro.db').close();
    const ro = database('ro.db', { readonly: true });
    expect(() => new SqliteStore({ database: ro })).toThrow(SluiceConfigError);
    expect(() => new SqliteStore({ database: ro })).toThrow(/"database".*opened for writing/);
  });

  it.each([
    [{ database: {} }, 'database'],
    [{ database: '/var/lib/limits.db' }, 'database'],
    [{ database: 'x', tabel: 'y' }, 'tabel'],
  ])('%# names %s', (options, option) => {
    let error: unknown;
    try {
      new SqliteStore(options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as SluiceConfigError).option).toBe(option);
  });

  it('a table that is not an identifier', () => {
    expect(() => new SqliteStore({ database: database(), table: 'x"; DROP' })).toThrow(
      /invalid option "table"/,
    );
  });
});
