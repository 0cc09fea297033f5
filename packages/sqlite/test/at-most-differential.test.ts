// consumeAtMost on SqliteStore (core's stepAtMost inside one statement) == MemoryStore, on
// random traces mixing charges and partial grants, for every algorithm that grants partly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@sluice/core';
import { AT_MOST_ALGORITHMS, atMostOpsArb, EPOCH, runAtMostTrace } from '@sluice/test-kit';
import Database from 'better-sqlite3';
import fc from 'fast-check';
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
  let run = 0;
  it.each(AT_MOST_ALGORITHMS.map((a) => [a.name, a] as const))('%s', async (_name, spec) => {
    const algorithm = spec.build();
    await fc.assert(
      fc.asyncProperty(atMostOpsArb(spec.scale, algorithm.limit), async (ops) => {
        const key = `k${run++}`;
        const memory = new MemoryStore({ maxKeys: 8 });
        const expected = await runAtMostTrace(memory, algorithm, key, ops, EPOCH);
        expect(await runAtMostTrace(store, algorithm, key, ops, EPOCH)).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});
