// SqliteStore's operator entries across processes of one host: process A (this one) bans
// and unbans through LimitOperations; process B (operations-worker.ts, its own connection to
// the file) decides without pause and reports when its answer changes. B has no
// notification to hear: it obeys when it next reads the version (every syncMs). Printed:
// from A's call resolving to B's first decision with the new answer.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LimitOperations } from '@sluice/core';
import { tsWorkerPath } from '@sluice/test-kit';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/index.js';
import { KEY } from './operations-worker.js';

const SYNC_MS = 100;
// Well past syncMs: a loaded machine (load 10-30 on 2 cores) delays timers.
const BOUND_MS = SYNC_MS + 1000;

const now = () => performance.timeOrigin + performance.now();

test('a ban and an unban written by A reach process B within syncMs (no push)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-sqlite-procs-'));
  const file = join(dir, 'limits.db');
  const db = new Database(file);
  const store = new SqliteStore({ database: db, sweepIntervalMs: 0 });
  const ops = new LimitOperations({ store });
  const child = fork(tsWorkerPath(), [join(__dirname, 'operations-worker.ts')], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let last: { denied: boolean; at: number } | undefined;
  const waiters: ((m: { denied: boolean; at: number }) => void)[] = [];
  let failure: Error | undefined;
  child.on('message', (m: { type: string; denied?: boolean; at?: number; error?: string }) => {
    if (m.type === 'error') failure = new Error(m.error);
    if (m.type === 'flip') {
      last = { denied: m.denied!, at: m.at! };
      for (const w of waiters.splice(0)) w(last);
    }
    if (m.type === 'ready' || m.type === 'stopped') for (const w of waiters.splice(0)) w(last!);
  });
  const next = () => new Promise<{ denied: boolean; at: number }>((r) => waiters.push(r));
  const flip = async (denied: boolean) => {
    while (last?.denied !== denied) {
      if (failure) throw failure;
      await next();
    }
    return last.at;
  };
  try {
    child.send({ type: 'setup', file, syncMs: SYNC_MS });
    await flip(false);
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      await ops.ban({ key: KEY }, { for: '1h' });
      let at = now();
      delays.push(Math.max(0, (await flip(true)) - at));
      await ops.unban({ key: KEY });
      at = now();
      delays.push(Math.max(0, (await flip(false)) - at));
    }
    console.info(
      `SQLite, syncMs ${SYNC_MS}: ban/unban reached process B after ${delays.map((d) => d.toFixed(0)).join(', ')} ms`,
    );
    expect(Math.max(...delays)).toBeLessThanOrEqual(BOUND_MS);
  } finally {
    const stopped = next();
    child.send({ type: 'stop' });
    await stopped;
    child.kill();
    store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
