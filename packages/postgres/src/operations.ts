import {
  entriesInForce,
  type OperationEntry,
  OperationListeners,
  type OperationsSync,
} from '@sluice/core/store';
import type { Listening, SqlClient } from './client.js';
import type { SqlNames } from './sql/names.js';
import { loadSql, versionSql, writeSql } from './sql/operations.sql.js';

/** What {@link PostgresOperations} needs of its store. */
export interface PostgresOperationsContext {
  sql: SqlClient;
  names: SqlNames;
  /** The notification channel of the store's table (`channelOf`). */
  channel: string;
  /** Option `operations.syncMs` (ms); undefined: the core's default. */
  syncMs: number | undefined;
}

/**
 * `PostgresStore#operations`: the operator entries of each limiter prefix in two tables
 * that `migrate()` creates (`<table>_ops`, `<table>_ops_version`), shared by every process
 * on the database. A write is one function call that bumps the prefix's version and sends
 * it with `NOTIFY` (at commit); each process `LISTEN`s on one connection of its own and
 * reloads on a version it has not seen; a read is one statement (version and entries from
 * one snapshot). Nothing is sent per decision: limiters decide from the snapshot the core
 * keeps, and re-check the version every `syncMs` (a notification lost with the listening
 * connection).
 */
export class PostgresOperations implements OperationsSync {
  readonly shared = true;
  /** How often each process re-checks the version, ms (option `operations.syncMs`). */
  readonly syncMs: number | undefined;
  readonly #sql: SqlClient;
  readonly #channel: string;
  readonly #load: string;
  readonly #version: string;
  readonly #write: string;
  readonly #listeners = new OperationListeners();
  #listening: Listening | undefined;
  /** Whether the `LISTEN` stands (a new prefix's listeners then need no re-check). */
  #ready = false;
  #closed = false;

  constructor(context: PostgresOperationsContext) {
    this.#sql = context.sql;
    this.#channel = context.channel;
    this.syncMs = context.syncMs;
    this.#load = loadSql(context.names);
    this.#version = versionSql(context.names);
    this.#write = writeSql(context.names);
  }

  async load(prefix: string): Promise<{ version: number; entries: OperationEntry[] }> {
    const now = Date.now();
    const text = await this.#sql.value(this.#load, [prefix, now]);
    const [version, entries] = (typeof text === 'string' ? JSON.parse(text) : text) as [
      unknown,
      unknown[],
    ];
    return { version: Number(version), entries: entriesInForce(entries, now) };
  }

  async put(prefix: string, entry: OperationEntry): Promise<number> {
    const values = [prefix, entry.id, JSON.stringify(entry), entry.until, Date.now()];
    return Number(await this.#sql.value(this.#write, values));
  }

  async remove(prefix: string, id: string): Promise<number> {
    return Number(await this.#sql.value(this.#write, [prefix, id, null, null, Date.now()]));
  }

  /** One primary-key read: once per prefix per `syncMs` in each process. */
  async version(prefix: string): Promise<number> {
    return Number(await this.#sql.value(this.#version, [prefix]));
  }

  /**
   * Listens for `prefix`'s versions (one `LISTEN` per store, on the table's channel, opened
   * on the first call). Once the `LISTEN` stands, and again after its connection was lost,
   * every listener is told the current version (notifications sent meanwhile were lost).
   * Best effort: what it misses the core's version check every `syncMs` catches up.
   */
  subscribe(prefix: string, onChange: (version: number) => void): () => void {
    if (this.#closed) return () => undefined;
    const { first, stop } = this.#listeners.add(prefix, onChange);
    this.#listening ??= this.#sql.listen(this.#channel, {
      notify: (payload) => this.#heard(payload),
      listening: () => {
        this.#ready = true;
        this.#recheck(this.#listeners.prefixes());
      },
    });
    // A prefix first heard after the LISTEN stood: what changed since its load began.
    if (first && this.#ready) this.#recheck([prefix]);
    return () => void stop();
  }

  /** A notification: `'<version>:<prefix>'`. */
  #heard(payload: string): void {
    const colon = payload.indexOf(':');
    if (colon < 1) return;
    this.#listeners.tell(payload.slice(colon + 1), Number(payload.slice(0, colon)));
  }

  #recheck(prefixes: readonly string[]): void {
    for (const prefix of prefixes) {
      this.version(prefix).then(
        (v) => this.#listeners.tell(prefix, v),
        () => undefined,
      );
    }
  }

  /** Stops listening and closes the connection the store opened for it; listeners hear nothing more. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    const listening = this.#listening;
    this.#listening = undefined;
    await listening?.close();
  }
}
