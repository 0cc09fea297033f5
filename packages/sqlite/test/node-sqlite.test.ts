// The store conformance suite on node:sqlite's DatabaseSync (Node >= 22.13, where it has
// user functions); skipped, and said so, on an older Node (CI runs the suite on 22, 24, 26).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SluiceConfigError } from '@sluice/core';
import { describeStoreConformance } from '@sluice/test-kit';
import { SqliteStore } from '../src/index.js';
import { nodeSqlite } from './node-sqlite.js';

const DatabaseSync = nodeSqlite();
let dir: string;
const open: { close(): void }[] = [];

if (DatabaseSync === undefined) {
  describe.skip(`node:sqlite (absent on Node ${process.version}; needs 22.13+)`, () => {
    it('runs the store conformance suite', () => {});
  });
} else {
  describeStoreConformance({
    name: 'SqliteStore (node:sqlite)',
    async setup() {
      dir = mkdtempSync(join(tmpdir(), 'sluice-node-sqlite-'));
    },
    async teardown() {
      for (const db of open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
    clientClockStore() {
      const db = new DatabaseSync(join(dir, 'limits.db'));
      open.push(db);
      return new SqliteStore({ database: db, sweepIntervalMs: 0 });
    },
    workerModule: join(__dirname, 'node-sqlite-module.ts'),
    workerEnv: () => ({ SLUICE_SQLITE_FILE: join(dir, 'limits.db') }),
  });

  describe('node:sqlite opened read-only', () => {
    it('is a SluiceConfigError naming database', () => {
      const own = mkdtempSync(join(tmpdir(), 'sluice-ro-'));
      const file = join(own, 'ro.db');
      new DatabaseSync(file).close();
      const ro = new DatabaseSync(file, { readOnly: true });
      open.push(ro);
      expect(() => new SqliteStore({ database: ro })).toThrow(SluiceConfigError);
      expect(() => new SqliteStore({ database: ro })).toThrow(/"database".*opened for writing/);
      ro.close();
      open.pop();
      rmSync(own, { recursive: true, force: true });
    });
  });
}
