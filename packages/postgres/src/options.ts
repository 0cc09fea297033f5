import { SluiceConfigError } from '@sluice/core';
import {
  checkOptionNames,
  type OperationsOptions,
  optionNames,
  parseOperationsOption,
} from '@sluice/core/store';
import { type PostgresClient, type SqlClient, SUPPORTED_CLIENTS, sqlClient } from './client.js';

/** Options of {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /**
   * The client, told apart by shape: a `pg` `Pool` (or `Client`: one connection, so one
   * statement at a time) or a postgres.js `sql` (`postgres(url)`). The store never ends it.
   */
  client: PostgresClient;
  /**
   * Whose clock decides: `'server'` (default) takes the time from the database
   * (`clock_timestamp()`, whole ms), so app servers' clocks do not matter; `'client'` uses
   * the limiter's `clock` (tests, or when every server's clock is trusted).
   */
  clock?: 'server' | 'client';
  /** The schema of the table and functions: an SQL identifier. Default `'public'`. */
  schema?: string;
  /**
   * The table: an SQL identifier of at most 40 characters (its functions are named
   * `<table>_<name>`). Default `'sluice_limits'`.
   */
  table?: string;
  /**
   * `false` (default): `migrate()` creates an `UNLOGGED` table: no WAL, so decisions cost
   * less, but PostgreSQL empties it after a crash (every key starts full again) and replicas
   * do not have it. `true`: a logged table that keeps counters over a crash and reaches
   * replicas. Decided when the table is created (`ALTER TABLE ... SET LOGGED` changes it).
   */
  logged?: boolean;
  /**
   * A call that takes longer than this many **ms** rejects with `StoreTimeoutError` (the
   * limiter's `onStoreError` decides it), and charges nothing even when the database runs it
   * later: past its deadline the statement decides nothing, and a statement that ran in time
   * but whose reply arrives late gives its charge back when the reply comes. Default 500.
   */
  timeoutMs?: number;
  /**
   * Every this many **ms**, expired rows are deleted, in passes of at most `sweepBatch` rows
   * that never wait on a row a decision holds. `0`: never (call `store.sweep()` yourself).
   * Default 60 000.
   */
  sweepIntervalMs?: number;
  /** The most rows one sweep pass deletes. Default 5000. */
  sweepBatch?: number;
  /**
   * The operator entries' propagation (`LimitOperations`): `{ syncMs }`, how often each
   * process re-checks their version (one primary-key read per limiter prefix), catching a
   * notification its listening connection missed. Default 5 s. Nothing to set for them to
   * work.
   *
   * @example
   * ```ts
   * new PostgresStore({ client, operations: { syncMs: '1s' } })
   * ```
   */
  operations?: OperationsOptions;
}

const OPTIONS = optionNames<PostgresStoreOptions>({
  client: true,
  clock: true,
  schema: true,
  table: true,
  logged: true,
  timeoutMs: true,
  sweepIntervalMs: true,
  sweepBatch: true,
  operations: true,
});

/** {@link PostgresStoreOptions}, checked, with every default applied. */
export interface PostgresStoreConfig {
  client: PostgresClient;
  sql: SqlClient;
  clock: 'server' | 'client';
  schema: string;
  table: string;
  logged: boolean;
  timeoutMs: number;
  sweepIntervalMs: number;
  sweepBatch: number;
  /** Option `operations.syncMs` in ms; undefined: the core's default. */
  syncMs: number | undefined;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function identifier(option: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || !IDENTIFIER.test(value) || value.length > max) {
    throw new SluiceConfigError(
      option,
      value,
      `an SQL identifier (a letter or _, then letters, digits or _; at most ${max} characters)`,
    );
  }
  return value;
}

function msAtLeast(option: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new SluiceConfigError(option, value, `a finite number of ms >= ${min}`);
  }
  return value;
}

/**
 * Checks the options once, at construction.
 * @throws {@link SluiceConfigError} naming the option (a client described by its kind only:
 *   never its connection string or password).
 */
export function parseOptions(options: PostgresStoreOptions): PostgresStoreConfig {
  if (options === null || typeof options !== 'object' || sqlClient(options) !== undefined) {
    throw new SluiceConfigError('options', options, 'an object { client, clock?, schema?, … }', {
      hint: 'pass the client as an option: `new PostgresStore({ client })`',
    });
  }
  checkOptionNames(options, OPTIONS, 'new PostgresStore()');
  const {
    client,
    clock = 'server',
    schema = 'public',
    table = 'sluice_limits',
    logged = false,
    timeoutMs = 500,
    sweepIntervalMs = 60_000,
    sweepBatch = 5000,
  } = options;
  const sql = sqlClient(client);
  if (sql === undefined) throw new SluiceConfigError('client', client, SUPPORTED_CLIENTS);
  if (clock !== 'server' && clock !== 'client') {
    throw new SluiceConfigError('clock', clock, "'server' or 'client'");
  }
  if (typeof logged !== 'boolean') throw new SluiceConfigError('logged', logged, 'a boolean');
  if (timeoutMs <= 0) throw new SluiceConfigError('timeoutMs', timeoutMs, 'a number of ms > 0');
  if (!Number.isInteger(sweepBatch) || sweepBatch < 1) {
    throw new SluiceConfigError('sweepBatch', sweepBatch, 'an integer >= 1');
  }
  return {
    client,
    sql,
    clock,
    schema: identifier('schema', schema, 63),
    table: identifier('table', table, 40),
    logged,
    timeoutMs: msAtLeast('timeoutMs', timeoutMs, 0),
    sweepIntervalMs: msAtLeast('sweepIntervalMs', sweepIntervalMs, 0),
    sweepBatch,
    syncMs: parseOperationsOption(options.operations, 'PostgresStore'),
  };
}
