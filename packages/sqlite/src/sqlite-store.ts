import { type Decision, SluiceConfigError, type Store } from '@sluice/core';
import {
  type Algorithm,
  consumeEach,
  enableOperations,
  fullKey,
  type OperationsSync,
  releaseOperations,
  type State,
  StoreNotReadyError,
  type StoreRequest,
  stepAtMost,
} from '@sluice/core/store';
import { isReadOnlyError, type SqliteStatement } from './database.js';
import { opsTablesSql, SqliteOperations } from './operations.js';
import { parseOptions, type SqliteStoreConfig, type SqliteStoreOptions } from './options.js';
import { decodeState, EXPIRY_SQL, encodeState } from './state-text.js';

/** Creates the limits table `table` when it is not there. */
function limitsTableSql(table: string): string {
  return `CREATE TABLE IF NOT EXISTS "${table}" (key TEXT PRIMARY KEY NOT NULL, state TEXT,
    expires_at REAL GENERATED ALWAYS AS (${EXPIRY_SQL}) VIRTUAL)`;
}

/** The fix named when the store's tables are missing. */
const MIGRATE_FIX =
  'run `store.migrate()` (or make a new SqliteStore): it creates them again, empty';

/** Whether `error` is SQLite's "no such table" (either driver). */
function isNoSuchTable(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.includes('no such table');
}

/** Ms a row outlives its state's expiry before a sweep deletes it. */
const SWEEP_SLACK_MS = 1000;

/**
 * A {@link Store} in an SQLite file that every process of one host shares (PM2,
 * node:cluster, several services), with no server: exact across processes, synchronous.
 *
 * Each decision is **one statement**, `INSERT … ON CONFLICT DO UPDATE SET state =
 * sluice_step(state)`, where `sluice_step` is the algorithm's own TS `step` registered as an
 * SQL function: the statement takes SQLite's write lock before it reads the row, so no
 * other process writes between the read and the write (no twin to drift: the algorithm is
 * the TS one). The database runs in WAL mode with a busy timeout: a process waiting for
 * the lock retries for up to `busyTimeoutMs`. Several limits of one request are decided in
 * one `BEGIN IMMEDIATE` transaction, all-or-nothing. Decisions use the limiter's clock: one
 * host has one clock.
 *
 * `consume`, `consumeAll`, `refund` and `reset` return their answers directly, never a
 * promise.
 *
 * @example
 * ```ts
 * import Database from 'better-sqlite3';
 * const store = new SqliteStore({ database: new Database('/var/lib/app/limits.db') });
 * const limiter = new RateLimiter({ algorithm: gcra({ rate: 60, period: '1m' }), store });
 * ```
 *
 * Operator entries (`LimitOperations`: bans, allow and deny lists, overrides) live in the
 * same file and reach every process on it: this process's limiters at once, the others'
 * within `operations.syncMs` (each process reads their version that often; no push).
 *
 * @throws {@link SluiceConfigError} naming `database` (neither driver, or opened
 *   read-only), `table`, `busyTimeoutMs`, `sweepIntervalMs`, `sweepBatch`,
 *   `operations.syncMs`, or an unknown option.
 */
export class SqliteStore implements Store {
  /** The table (option `table`). */
  readonly table: string;
  /**
   * The operator entries (`LimitOperations`) of every limiter prefix, in the tables
   * `<table>_ops` and `<table>_ops_version` of the file: each write bumps a version; this
   * store's limiters see it at once, other processes' when they next read the version
   * (every `operations.syncMs`, default 5 s). No read per decision.
   */
  readonly operations: OperationsSync;
  readonly #operations: SqliteOperations;
  readonly #config: SqliteStoreConfig;
  /** The statement of a decision on an existing row, then the one that also inserts. */
  readonly #decide: readonly [SqliteStatement, SqliteStatement];
  readonly #refund: readonly [SqliteStatement, SqliteStatement];
  readonly #expired: SqliteStatement;
  readonly #delete: SqliteStatement;
  readonly #sweep: SqliteStatement;
  readonly #tables: SqliteStatement;
  #timer: NodeJS.Timeout | undefined;
  #lastNow = 0;
  // The call the SQL functions run (set before each statement; the statement runs
  // synchronously in this thread, so nothing else can interleave).
  #algorithm: Algorithm | undefined;
  #now = 0;
  #cost = 0;
  /** Whether the running step is a partial grant (`consumeAtMost`: `#cost` is its max). */
  #atMost = false;
  #at = 0;
  #decision: Decision | undefined;

  constructor(options: SqliteStoreOptions) {
    const config = parseOptions(options);
    const db = config.database;
    const t = `"${config.table}"`;
    this.table = config.table;
    this.#config = config;
    if (db.readonly === true) {
      throw new SluiceConfigError('database', db, 'a database opened for writing', {
        hint: 'it was opened read-only',
      });
    }
    try {
      db.exec(`PRAGMA busy_timeout = ${config.busyTimeoutMs}`);
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      db.exec(limitsTableSql(config.table));
      // A read-only file (or directory) fails here, at construction, not on a request.
      db.exec('BEGIN IMMEDIATE; ROLLBACK');
    } catch (error) {
      if (isReadOnlyError(error)) {
        throw new SluiceConfigError('database', db, 'a database opened for writing', {
          hint: 'SQLite says it is read-only (the file, its directory, or how it was opened)',
        });
      }
      throw error;
    }
    enableOperations();
    this.#operations = new SqliteOperations(db, config.table, config.syncMs);
    this.operations = this.#operations;
    db.function('sluice_step', { deterministic: false }, (state: string | null) =>
      this.#step(state),
    );
    db.function('sluice_refund', { deterministic: false }, (state: string | null) =>
      this.#giveBack(state),
    );
    const update = (fn: string) => db.prepare(`UPDATE ${t} SET state = ${fn}(state) WHERE key = ?`);
    const upsert = (fn: string) =>
      db.prepare(
        `INSERT INTO ${t} (key, state) VALUES (?, ${fn}(NULL))
         ON CONFLICT (key) DO UPDATE SET state = ${fn}(state)`,
      );
    this.#decide = [update('sluice_step'), upsert('sluice_step')];
    this.#refund = [update('sluice_refund'), upsert('sluice_refund')];
    this.#delete = db.prepare(`DELETE FROM ${t} WHERE key = ?`);
    // A sweep finds expired keys with a read (which, in WAL mode, never blocks a writer),
    // then deletes them in one short write that checks each is still expired.
    this.#expired = db.prepare(`SELECT key FROM ${t} WHERE expires_at < ? LIMIT ?`);
    this.#tables = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)",
    );
    this.#sweep = db.prepare(
      `DELETE FROM ${t} WHERE key IN (SELECT value FROM json_each(?)) AND expires_at < ?`,
    );
    if (config.sweepIntervalMs > 0) {
      this.#timer = setInterval(() => {
        try {
          this.sweep();
        } catch {
          // Busy or failing: the next interval tries again.
        }
      }, config.sweepIntervalMs);
      this.#timer.unref();
    }
  }

  /**
   * Creates the store's tables when they are missing (the constructor does, so only a
   * table dropped since needs it); idempotent, synchronous. Counters of a re-created table
   * start empty.
   */
  migrate(): void {
    const db = this.#config.database;
    db.exec(limitsTableSql(this.table));
    db.exec(opsTablesSql(this.table));
  }

  /**
   * {@link Store.ready}: resolves when the limits table and the operator-entry tables are
   * in the file (the constructor creates them); rejects with a `StoreNotReadyError`
   * naming `migrate()` when one was dropped since (then every decision fails with the same
   * error, which `onStoreError` answers, logged once per outage).
   */
  ready(): Promise<void> {
    const names = [this.table, `${this.table}_ops`, `${this.table}_ops_version`];
    const found = this.#tables.all(...names) as unknown[];
    return found.length === names.length ? Promise.resolve() : Promise.reject(this.#missing());
  }

  /** One decision: one statement, the algorithm's `step` inside it. */
  consume(key: string, algorithm: Algorithm, cost: number, nowMs: number): Decision {
    this.#algorithm = algorithm;
    this.#now = nowMs;
    this.#cost = cost;
    if (nowMs > this.#lastNow) this.#lastNow = nowMs;
    return this.#run(this.#decide, key);
  }

  /**
   * {@link Store.consumeAtMost}: up to `max` units in one statement, core's `stepAtMost`
   * (the TS grant) inside it, as `consume` runs `step`.
   */
  consumeAtMost(key: string, algorithm: Algorithm, max: number, nowMs: number): Decision {
    this.#atMost = true;
    try {
      return this.consume(key, algorithm, max, nowMs);
    } finally {
      this.#atMost = false;
    }
  }

  /**
   * {@link Store.consumeAll}: every request admitted or none charged, in one `BEGIN
   * IMMEDIATE` transaction (no other process writes in between), by `consumeEach`.
   */
  consumeAll(requests: readonly StoreRequest[], nowMs: number): Decision[] {
    const db = this.#config.database;
    db.exec('BEGIN IMMEDIATE');
    try {
      const decisions = consumeEach(
        requests.map((r) => r.cost),
        (i, cost) => this.consume(fullKey(requests[i]!), requests[i]!.algorithm, cost, nowMs),
      ) as Decision[];
      db.exec('COMMIT');
      return decisions;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }

  /** {@link Store.refund}: the algorithm's TS `refund` inside one statement. */
  refund(key: string, algorithm: Algorithm, cost: number, nowMs: number, atMs: number): Decision {
    if (typeof algorithm.refund !== 'function') {
      throw new TypeError(`sluice: algorithm ${algorithm.description} has no refund`);
    }
    this.#algorithm = algorithm;
    this.#now = nowMs;
    this.#cost = cost;
    this.#at = atMs;
    return this.#run(this.#refund, key);
  }

  reset(key: string): void {
    try {
      this.#delete.run(key);
    } catch (error) {
      throw isNoSuchTable(error) ? this.#missing() : error;
    }
  }

  #missing(): StoreNotReadyError {
    return new StoreNotReadyError(
      'SqliteStore',
      `its table "${this.table}" (or its operator-entry tables) is missing from the file`,
      MIGRATE_FIX,
    );
  }

  /**
   * Deletes rows expired for more than a second (by the latest time a call carried, else
   * now), in passes of at most `sweepBatch` rows, until a pass finds fewer or `maxPasses`
   * ran; returns how many. The store does it every `sweepIntervalMs` by itself.
   */
  sweep(maxPasses = 100): number {
    const cutoff = (this.#lastNow || Date.now()) - SWEEP_SLACK_MS;
    const batch = this.#config.sweepBatch;
    let total = 0;
    for (let pass = 0; pass < maxPasses; pass++) {
      const rows = this.#expired.all(cutoff, batch) as { key: string }[];
      if (rows.length > 0) {
        const keys = JSON.stringify(rows.map((r) => r.key));
        const { changes } = this.#sweep.run(keys, cutoff) as { changes: number | bigint };
        total += Number(changes);
      }
      if (rows.length < batch) break;
    }
    return total;
  }

  /**
   * Stops the periodic sweep and the operator entries' version checks (limiters keep
   * deciding from the entries they have). Does not close the database.
   */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    releaseOperations(this.operations);
    this.#operations.close();
  }

  /**
   * Runs the decision's `UPDATE` (one statement for an existing key); when no row was
   * there, the `INSERT … ON CONFLICT DO UPDATE` (exact even when another process inserted
   * the key in between: the conflict runs the step on its row).
   */
  #run(statements: readonly [SqliteStatement, SqliteStatement], key: string): Decision {
    this.#decision = undefined;
    try {
      statements[0].run(key);
      if (this.#decision === undefined) statements[1].run(key);
    } catch (error) {
      throw isNoSuchTable(error) ? this.#missing() : error;
    }
    const decision = this.#decision!;
    this.#decision = undefined;
    return decision;
  }

  /** `sluice_step(state)`: the new state's text (the old one when nothing is written). */
  #step(text: string | null): string | null {
    const now = this.#now;
    const state = live(text, now);
    const algorithm = this.#algorithm!;
    const result = this.#atMost
      ? stepAtMost(algorithm, state, now, this.#cost)
      : algorithm.step(state, now, this.#cost);
    this.#decision = result.decision;
    return result.state === undefined ? text : encodeState(result.state);
  }

  /** `sluice_refund(state)`: the state after the give-back (NULL: none). */
  #giveBack(text: string | null): string | null {
    const now = this.#now;
    const result = this.#algorithm!.refund!(live(text, now), now, this.#cost, this.#at);
    this.#decision = result.decision;
    if (result.state === undefined) return text;
    return result.state === null ? null : encodeState(result.state);
  }
}

/** The state of `text`, or undefined when there is none or it expired (as MemoryStore). */
function live(text: string | null, nowMs: number): State | undefined {
  if (text === null) return undefined;
  const state = decodeState(text);
  const expiry = typeof state === 'number' ? state : state[0]!;
  return expiry <= nowMs ? undefined : state;
}
