import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStoreConformance } from '@sluice/test-kit';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/index.js';

let dir: string;
const open: Database.Database[] = [];

describeStoreConformance({
  name: 'SqliteStore (better-sqlite3)',
  async setup() {
    dir = mkdtempSync(join(tmpdir(), 'sluice-sqlite-'));
  },
  async teardown() {
    for (const db of open) db.close();
    rmSync(dir, { recursive: true, force: true });
  },
  clientClockStore() {
    const db = new Database(join(dir, 'limits.db'));
    open.push(db);
    return new SqliteStore({ database: db, sweepIntervalMs: 0 });
  },
  workerModule: join(__dirname, 'store-module.ts'),
  // The 4 x 250 rounds run at the default busy timeout; the soak on a store of its own
  // (store-module.ts's soakStore).
  workerEnv: () => ({ SLUICE_SQLITE_FILE: join(dir, 'limits.db') }),
});
