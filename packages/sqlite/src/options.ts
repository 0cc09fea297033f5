import { SluiceConfigError } from '@sluice/core';
import {
  checkOptionNames,
  type OperationsOptions,
  optionNames,
  parseOperationsOption,
} from '@sluice/core/store';
import { isSqliteDatabase, type SqliteDatabase, SUPPORTED_DATABASES } from './database.js';

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * The database, opened for writing on a file every process of the host shares: a
   * better-sqlite3 12 `Database` (`new Database('/var/lib/app/limits.db')`) or a
   * `node:sqlite` `DatabaseSync` (Node >= 22.13). The store switches it to WAL and sets its
   * busy timeout; it never closes it.
   */
  database: SqliteDatabase;
  /** The table: an SQL identifier. Default `'sluice_limits'`. */
  table?: string;
  /**
   * How long a decision waits for another connection's write lock before failing, **ms**
   * (SQLite's `busy_timeout`). The store is synchronous: while it waits, its whole process
   * waits (every request, limited or not). A decision's write holds the lock for
   * microseconds; a lock held longer (a backup, the `sqlite3` shell) fails the call after
   * this wait, and the limiter's `onStoreError` decides it, with one log line.
   * @default 250
   * @throws SluiceConfigError naming `busyTimeoutMs` when not an integer >= 0.
   */
  busyTimeoutMs?: number;
  /**
   * Every this many **ms**, expired rows are deleted in passes of at most `sweepBatch`
   * rows. `0`: never (call `store.sweep()` yourself). Default 60 000.
   */
  sweepIntervalMs?: number;
  /** The most rows one sweep pass deletes. Default 5000. */
  sweepBatch?: number;
  /**
   * The operator entries' propagation (`LimitOperations`): `{ syncMs }`, how often each
   * process reads their version (one primary-key read per limiter prefix); another process's
   * change reaches this one's limiters within it. Default 5 s. Nothing to set for them to
   * work.
   *
   * @example
   * ```ts
   * new SqliteStore({ database, operations: { syncMs: '200ms' } })
   * ```
   */
  operations?: OperationsOptions;
}

/**
 * Default `busyTimeoutMs`: a synchronous store blocks its whole process while it waits for
 * the lock, so the wait is short and a lock held longer is a store failure (`onStoreError`).
 */
const DEFAULT_BUSY_TIMEOUT_MS = 250;

const OPTIONS = optionNames<SqliteStoreOptions>({
  database: true,
  table: true,
  busyTimeoutMs: true,
  sweepIntervalMs: true,
  sweepBatch: true,
  operations: true,
});

/** {@link SqliteStoreOptions} checked, every default applied. */
export interface SqliteStoreConfig {
  database: SqliteDatabase;
  table: string;
  busyTimeoutMs: number;
  sweepIntervalMs: number;
  sweepBatch: number;
  /** Option `operations.syncMs` in ms; undefined: the core's default. */
  syncMs: number | undefined;
}

function wholeAtLeast(option: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new SluiceConfigError(option, value, `an integer >= ${min}`);
  }
  return value;
}

/**
 * Checks the options once, at construction.
 * @throws {@link SluiceConfigError} naming `database`, `table`, `busyTimeoutMs`,
 *   `sweepIntervalMs`, `sweepBatch`, `operations.syncMs` or an unknown option.
 */
export function parseOptions(options: SqliteStoreOptions): SqliteStoreConfig {
  if (options === null || typeof options !== 'object' || isSqliteDatabase(options)) {
    throw new SluiceConfigError('options', options, 'an object { database, … }', {
      hint: 'pass the database as an option: `new SqliteStore({ database })`',
    });
  }
  checkOptionNames(options, OPTIONS, 'new SqliteStore()');
  const {
    database,
    table = 'sluice_limits',
    busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS,
    sweepIntervalMs = 60_000,
    sweepBatch = 5000,
  } = options;
  if (!isSqliteDatabase(database)) {
    throw new SluiceConfigError('database', database, SUPPORTED_DATABASES);
  }
  if (typeof table !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(table)) {
    throw new SluiceConfigError(
      'table',
      table,
      'an SQL identifier (a letter or _, then letters, digits or _; at most 63 characters)',
    );
  }
  return {
    database,
    table,
    busyTimeoutMs: wholeAtLeast('busyTimeoutMs', busyTimeoutMs, 0),
    sweepIntervalMs: wholeAtLeast('sweepIntervalMs', sweepIntervalMs, 0),
    sweepBatch: wholeAtLeast('sweepBatch', sweepBatch, 1),
    syncMs: parseOperationsOption(options.operations, 'SqliteStore'),
  };
}
