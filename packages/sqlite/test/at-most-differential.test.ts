// consumeAtMost on SqliteStore (core's stepAtMost inside one statement) == MemoryStore, on
// random traces mixing charges and partial grants, for every algorithm that grants partly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { itGrantsAsMemory } from '@sluice/test-kit';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/index.js';

const RUNS = Number(process.env.SLUICE_DIFFERENTIAL_RUNS ?? 60);
let dir: string;
let db: Database.Database;
let store: SqliteStore;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-sqlite-at-most-'));
  db = new Database(join(dir, 'limits.db'));
  store = new SqliteStore({ database: db, sweepIntervalMs: 0 });
});

afterAll(() => {
  store?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteStore.consumeAtMost == MemoryStore (the TS grant)', () => {
  itGrantsAsMemory(() => store, RUNS);
});
