// The SQLite cells: SqliteStore on one file of a temporary directory. The lock cells: two
// apps (two connections) on the file while a third connection holds the write lock for 1 s
// (`BEGIN IMMEDIATE`, as a backup or the `sqlite3` shell would); the store is synchronous,
// so each decision waits out its busy timeout (250 ms by default) with its whole process,
// then `onStoreError` decides. The kill cell: an app process SIGKILLed while it writes
// decisions in a loop; the file must stay whole and the next app decide on what it kept.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RateLimiter } from '@sluice/core';
import { SqliteStore } from '@sluice/sqlite';
import { seededRandom } from '@sluice/test-kit';
import Database from 'better-sqlite3';
import { GCRA_PERIOD_MS, LIMIT, makeAlgorithm, sluiceBound } from './cells.js';
import { type CellFigures, figures, type Request } from './measure.js';
import type { OtherCellSpec } from './other-cells.js';
import { killChild, ownNode } from './procs.js';
import { within } from './redis-cell.js';
import type { AlgorithmId, Outcome, Policy, SluiceOptions } from './subjects.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PREFIX = 'fm';
const HOLD_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SqliteApp {
  decide(key: string): Promise<Outcome>;
  lines: () => number;
  close(): void;
}

function sqliteApp(file: string, algorithm: AlgorithmId, policy: Policy, limit: number): SqliteApp {
  const db = new Database(file);
  const store = new SqliteStore({ database: db, sweepIntervalMs: 0 });
  let lines = 0;
  const limiter = new RateLimiter({
    algorithm: makeAlgorithm(algorithm, limit),
    store,
    prefix: PREFIX,
    onStoreError: policy,
    logger: { warn: () => void lines++ },
  });
  return {
    decide: async (key) => ((await limiter.consume(key)).allowed ? 'admitted' : 'denied'),
    lines: () => lines,
    close() {
      store.close();
      db.close();
    },
  };
}

/** Units charged for `key` in `file`, read on a connection of its own. */
async function chargedIn(file: string, algorithm: AlgorithmId, limit: number, key: string) {
  const db = new Database(file);
  try {
    const store = new SqliteStore({ database: db, sweepIntervalMs: 0 });
    const limiter = new RateLimiter({
      algorithm: makeAlgorithm(algorithm, limit),
      store,
      prefix: PREFIX,
    });
    const peek = await limiter.peek(key);
    store.close();
    return limit - peek.remaining;
  } finally {
    db.close();
  }
}

function tempFile(): { file: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-faults-sqlite-'));
  return {
    file: path.join(dir, 'limits.db'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function lockCell(algorithm: AlgorithmId, policy: Policy, quick: boolean): OtherCellSpec {
  const o: SluiceOptions = { algorithm, policy, limit: LIMIT, makeAlgorithm };
  // Two connections, each its own limiter: the stop cells' bound (two apps on their memory).
  const [bounds, boundText] = sluiceBound('stop', o);
  const id = `sluice-sqlite-${algorithm}-${policy}`;
  return {
    kind: 'other',
    id: `sqlite-lock/${id}`,
    fault: {
      id: 'sqlite-lock',
      label: `SQLite: another connection holds the write lock for ${HOLD_MS / 1000} s (BEGIN IMMEDIATE)`,
    },
    subject: {
      id,
      label: `sluice ${algorithm}, ${policy}, SqliteStore (busyTimeoutMs 250, the default)`,
    },
    bounds,
    boundText: boundText.replace('Redis decides', 'SQLite decides'),
    quick,
    async run(seed) {
      const random = seededRandom(seed);
      const { file, remove } = tempFile();
      const key = `sqlite-lock:${seed}`;
      const apps = [
        sqliteApp(file, algorithm, policy, LIMIT),
        sqliteApp(file, algorithm, policy, LIMIT),
      ];
      const holder = new Database(file);
      try {
        const requests: Request[] = [];
        const t0 = performance.now();
        const send = async () => {
          const at = performance.now() - t0;
          const outcome = await within(apps[random() < 0.5 ? 0 : 1]!.decide(key), 3000, 'error');
          requests.push({ at, outcome, ms: performance.now() - t0 - at });
          await sleep(5 * (0.5 + random()));
        };
        for (let i = 0; i < 100; i++) await send();
        const faultAt = performance.now() - t0;
        holder.exec('BEGIN IMMEDIATE');
        // Bounded in count and time: each decision blocks its process for the busy timeout.
        for (let i = 0; i < 200 && performance.now() - t0 < faultAt + HOLD_MS; i++) await send();
        holder.exec('ROLLBACK');
        const healAt = performance.now() - t0;
        for (let i = 0; i < 500; i++) await send();
        const elapsed = performance.now() - t0;
        const charged = await chargedIn(file, algorithm, LIMIT, key);
        const refill = algorithm === 'gcra' ? LIMIT / GCRA_PERIOD_MS : 0;
        return figures(
          requests,
          {
            faultAt,
            healAt,
            limit: LIMIT,
            allowed: LIMIT + Math.floor(elapsed * refill),
            charged,
            chargedSince: 0,
          },
          apps.reduce((n, a) => n + a.lines(), 0),
          0,
        );
      } finally {
        holder.close();
        for (const a of apps) a.close();
        remove();
      }
    },
  };
}

const zero = (): CellFigures => ({
  offered: 0,
  admitted: 0,
  denied: 0,
  errors: 0,
  limit: LIMIT,
  over: 0,
  under: 0,
  lost: 0,
  p99AddedMs: 0,
  recoverMs: null,
  logLines: 0,
  crashes: 0,
});

/** An app process writing decisions (each answered over IPC) is SIGKILLed after `KILL_AFTER`. */
const KILL_AFTER = 60;
const appKill: OtherCellSpec = {
  kind: 'other',
  id: 'sqlite-kill/sluice-sqlite-gcra-deny',
  fault: { id: 'sqlite-kill', label: 'SQLite: an app process SIGKILLed while it writes decisions' },
  subject: { id: 'sluice-sqlite-gcra-deny', label: 'sluice gcra, deny, SqliteStore' },
  bounds: { over: 0, lost: 1 },
  boundText:
    "a decision's write is whole or absent (SQLite's journal): never over, the file intact; at most the one decision in flight is charged with no answer",
  quick: false,
  async run(seed) {
    const { file, remove } = tempFile();
    const key = `sqlite-kill:${seed}`;
    const f = zero();
    const child: ChildProcess = ownNode([
      path.join(HERE, 'sqlite-child.ts'),
      file,
      key,
      String(LIMIT),
    ]);
    let crashed = false;
    child.once('exit', (_code, signal) => {
      crashed = signal !== 'SIGKILL';
    });
    let childAdmitted = 0;
    let childDecided = 0;
    let ready: () => void = () => undefined;
    const isReady = new Promise<void>((r) => {
      ready = r;
    });
    const killed = new Promise<void>((resolve) => {
      child.on('message', (m: { admitted?: number; decided?: number }) => {
        if (m.decided === undefined) return ready();
        childAdmitted = m.admitted!;
        childDecided = m.decided;
        if (m.decided === KILL_AFTER) resolve();
      });
    });
    let app: SqliteApp | undefined;
    try {
      await within(isReady, 30_000, undefined);
      child.send({ n: 2 * LIMIT });
      await within(killed, 60_000, undefined);
      await killChild(child);
      // Messages already in the channel arrive after the exit: let them land (bounded).
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
      f.offered += childDecided;
      f.admitted += childAdmitted;
      const db = new Database(file);
      const integrity = String(db.pragma('integrity_check', { simple: true }));
      db.close();
      app = sqliteApp(file, 'gcra', 'deny', LIMIT);
      for (let i = 0; i < 2 * LIMIT; i++) {
        f.offered++;
        if ((await within(app.decide(key), 3000, 'error' as const)) === 'admitted') f.admitted++;
      }
      f.logLines = app.lines();
      if (crashed) f.crashes++;
      const charged = await chargedIn(file, 'gcra', LIMIT, key);
      f.denied = f.offered - f.admitted;
      f.over = Math.max(0, f.admitted - LIMIT - 1);
      f.under = Math.max(0, LIMIT - f.admitted);
      f.lost = Math.max(0, charged - f.admitted);
      f.note = `killed after ${childDecided} decisions answered; integrity_check of the file after the kill: ${integrity}`;
      return f;
    } finally {
      await killChild(child);
      app?.close();
      remove();
    }
  },
};

/** Every SQLite cell, in the page's order. */
export function sqliteCells(): OtherCellSpec[] {
  return [
    lockCell('gcra', 'deny', true),
    lockCell('gcra', 'insurance', false),
    lockCell('gcra', 'allow', false),
    lockCell('fixed', 'deny', false),
    appKill,
  ];
}
