import {
  entriesInForce,
  type OperationEntry,
  OperationListeners,
  type OperationsSync,
} from '@sluice/core/store';
import type { SqliteDatabase, SqliteStatement } from './database.js';

/** Creates the operator entries' tables of `table` when they are not there. */
export function opsTablesSql(table: string): string {
  return `CREATE TABLE IF NOT EXISTS "${table}_ops" (prefix TEXT NOT NULL, id TEXT NOT NULL,
      entry TEXT NOT NULL, until REAL, PRIMARY KEY (prefix, id));
    CREATE TABLE IF NOT EXISTS "${table}_ops_version" (prefix TEXT PRIMARY KEY NOT NULL,
      version INTEGER NOT NULL)`;
}

/**
 * `SqliteStore#operations`: the operator entries of each limiter prefix in two tables of the
 * database file (`<table>_ops`, `<table>_ops_version`), shared by every process on it. A
 * write is one `BEGIN IMMEDIATE` transaction that bumps the prefix's version; this store's
 * own limiters hear of it at once, the other processes by reading the version every
 * `syncMs` (one primary-key read; SQLite has no notifications across processes). Nothing
 * is read per decision: limiters decide from the snapshot the core keeps.
 */
export class SqliteOperations implements OperationsSync {
  readonly shared = true;
  /** How often each process re-checks the version, ms (option `operations.syncMs`). */
  readonly syncMs: number | undefined;
  readonly #db: SqliteDatabase;
  readonly #listeners = new OperationListeners();
  readonly #version: SqliteStatement;
  readonly #load: SqliteStatement;
  readonly #bump: SqliteStatement;
  readonly #prune: SqliteStatement;
  readonly #put: SqliteStatement;
  readonly #remove: SqliteStatement;

  constructor(db: SqliteDatabase, table: string, syncMs: number | undefined) {
    this.#db = db;
    this.syncMs = syncMs;
    const ops = `"${table}_ops"`;
    const version = `"${table}_ops_version"`;
    db.exec(opsTablesSql(table));
    this.#version = db.prepare(`SELECT version FROM ${version} WHERE prefix = ?`);
    // One statement, so one read of the file: the entries are those of that version (no
    // transaction of our own: the app may have one open on this connection).
    this.#load = db.prepare(
      `SELECT coalesce((SELECT version FROM ${version} WHERE prefix = ?), 0) AS version,
        (SELECT json_group_array(entry) FROM ${ops}
          WHERE prefix = ? AND (until IS NULL OR until > ?)) AS entries`,
    );
    this.#bump = db.prepare(
      `INSERT INTO ${version} (prefix, version) VALUES (?, 1)
       ON CONFLICT (prefix) DO UPDATE SET version = version + 1 RETURNING version`,
    );
    this.#prune = db.prepare(`DELETE FROM ${ops} WHERE prefix = ? AND until <= ?`);
    this.#put = db.prepare(
      `INSERT INTO ${ops} (prefix, id, entry, until) VALUES (?, ?, ?, ?)
       ON CONFLICT (prefix, id) DO UPDATE SET entry = excluded.entry, until = excluded.until`,
    );
    this.#remove = db.prepare(`DELETE FROM ${ops} WHERE prefix = ? AND id = ?`);
  }

  /**
   * The version and entries of `prefix`, read by one statement (the entries are those of
   * that version); synchronous, so this process's snapshot is current from its first
   * decision.
   */
  loadNow(prefix: string): { version: number; entries: OperationEntry[] } {
    const now = Date.now();
    const row = this.#load.get(prefix, prefix, now) as {
      version: number | bigint;
      entries: string;
    };
    const texts = JSON.parse(row.entries) as unknown[];
    return { version: Number(row.version), entries: entriesInForce(texts, now) };
  }

  async load(prefix: string): Promise<{ version: number; entries: OperationEntry[] }> {
    return this.loadNow(prefix);
  }

  async put(prefix: string, entry: OperationEntry): Promise<number> {
    return this.#write(prefix, () =>
      this.#put.run(prefix, entry.id, JSON.stringify(entry), entry.until),
    );
  }

  async remove(prefix: string, id: string): Promise<number> {
    return this.#write(prefix, () => this.#remove.run(prefix, id));
  }

  /** One primary-key read: once per prefix per `syncMs` in each process. */
  async version(prefix: string): Promise<number> {
    return this.#readVersion(prefix);
  }

  /** This store's writes are told at once; other processes' by the version check. */
  subscribe(prefix: string, onChange: (version: number) => void): () => void {
    const { stop } = this.#listeners.add(prefix, onChange);
    return () => void stop();
  }

  /** Stops telling this store's listeners. */
  close(): void {
    this.#listeners.clear();
  }

  #readVersion(prefix: string): number {
    const row = this.#version.get(prefix) as { version: number | bigint } | undefined;
    return row === undefined ? 0 : Number(row.version);
  }

  /** Bumps the version, drops expired entries and writes, in one `BEGIN IMMEDIATE`. */
  #write(prefix: string, change: () => void): number {
    const db = this.#db;
    db.exec('BEGIN IMMEDIATE');
    let version: number;
    try {
      version = Number((this.#bump.get(prefix) as { version: number | bigint }).version);
      this.#prune.run(prefix, Date.now());
      change();
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
    this.#listeners.tell(prefix, version);
    return version;
  }
}
