// Another connection holding SQLite's write lock (a backup, the `sqlite3` shell): a
// synchronous store blocks its whole process while it waits for the lock, so the wait is
// bounded by `busyTimeoutMs` (default 250 ms), then the store failure is decided by
// `onStoreError` with one log line. Before, the default was 5 s: a lock held 3 s by another
// process froze every request of this one for 3 s, then they passed with no trace.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpLimiter, type HttpVerdict, type RequestView } from '@sluice/core/http';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/index.js';

let dir: string;
let db: Database.Database;
let holder: ChildProcess | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-sqlite-busy-'));
  db = new Database(join(dir, 'limits.db'));
});

afterAll(() => {
  holder?.kill('SIGKILL');
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Another process that takes the write lock, says so, and lets go after `holdMs`. */
async function holdLock(file: string, holdMs: number): Promise<ChildProcess> {
  const script = `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('ROLLBACK'); db.close(); process.exit(0); }, ${holdMs});
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  expect(String(line).trim()).toBe('locked');
  return child;
}

const view = (): RequestView => ({
  method: 'GET',
  route: 'GET /x',
  ip: '10.0.0.1',
  headers: {},
  raw: {},
});

it('a write lock held 3 s by another process: the default busy timeout gives up, onStoreError decides, one log line', async () => {
  const store = new SqliteStore({ database: db, sweepIntervalMs: 0 });
  expect(db.pragma('busy_timeout', { simple: true })).toBe(250);
  const warnings: string[] = [];
  const limiter = new HttpLimiter({
    limit: 'throttle:100,1',
    store,
    onStoreError: 'deny',
    logger: { warn: (message) => warnings.push(String(message)) },
  });
  holder = await holdLock(join(dir, 'limits.db'), 3000);
  const start = performance.now();
  const verdict = (await limiter.check(view())) as HttpVerdict;
  const blockedMs = performance.now() - start;
  // answered by the policy while the lock is still held (before, it waited for the lock)
  expect(verdict.allowed).toBe(false);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/store/i);
  // the loop was blocked about busyTimeoutMs (measured ~250 ms), far below the 3 s hold
  expect(blockedMs).toBeLessThan(2000);
  await once(holder, 'exit');
  holder = undefined;
  // the lock is gone: the store decides again
  const after = (await limiter.check(view())) as HttpVerdict;
  expect(after.allowed).toBe(true);
  store.close();
});
