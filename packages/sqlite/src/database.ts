/**
 * The two SQLite drivers the store takes, told apart by shape, behind one
 * {@link SqliteDriver}: a better-sqlite3 12 `Database` and a `node:sqlite` `DatabaseSync`
 * (Node >= 22.5; user functions from Node 22.13 / 23.5). Both are synchronous.
 */

/** A prepared statement, as far as the store uses it (both drivers have these). */
export interface SqliteStatement {
  /** Runs it, synchronously; better-sqlite3 and node:sqlite answer `{ changes, … }`. */
  run(...params: unknown[]): unknown;
  /** Runs it and returns its first row. */
  get(...params: unknown[]): unknown;
  /** Runs it and returns every row. */
  all(...params: unknown[]): unknown[];
}

/** A better-sqlite3 `Database` or a `node:sqlite` `DatabaseSync`, as far as the store uses it. */
export interface SqliteDatabase {
  /** Compiles one statement. */
  prepare(sql: string): SqliteStatement;
  /** Runs statements without parameters. */
  exec(sql: string): unknown;
  /** Registers a JavaScript function callable from SQL (the algorithms' steps). */
  function(
    name: string,
    options: { deterministic?: boolean; varargs?: boolean },
    fn: (...args: never[]) => unknown,
  ): unknown;
  /** better-sqlite3: whether it was opened read-only. */
  readonly readonly?: boolean;
  /** better-sqlite3: its file name. */
  readonly name?: string;
}

/** What a database that is neither is told (SluiceConfigError's `expected`). */
export const SUPPORTED_DATABASES =
  'a better-sqlite3 12 Database (`new Database(file)`) or a node:sqlite DatabaseSync (Node >= 22.13)';

/** Whether `value` has the shape of a supported database. */
export function isSqliteDatabase(value: unknown): value is SqliteDatabase {
  const d = value as SqliteDatabase;
  return (
    d !== null &&
    typeof d === 'object' &&
    typeof d.prepare === 'function' &&
    typeof d.exec === 'function' &&
    typeof d.function === 'function'
  );
}

/** Whether `error` is SQLite's "attempt to write a readonly database" (either driver). */
export function isReadOnlyError(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  return (
    (typeof e?.code === 'string' && e.code.startsWith('SQLITE_READONLY')) ||
    e?.errcode === 8 ||
    (typeof e?.message === 'string' && /readonly database/i.test(e.message))
  );
}
