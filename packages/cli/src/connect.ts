import { existsSync } from 'node:fs';
import type { Store } from '@sluice/core';
import type { CommandLine, StoreKind } from './args.js';
import { endpointOf } from './redact.js';
import { StoreUnreachableError } from './unreachable.js';

/** A store the command opened, and how to name it in a message (never with a secret). */
export interface OpenedStore {
  store: Store;
  /** Closes the store, then the connection or file the command opened for it. */
  close(): Promise<void>;
}

/** `Redis at host:port`, `PostgreSQL at host:port`, `SQLite file <path>`: where, for messages. */
export function placeOf(kind: StoreKind, location: string): string {
  if (kind === 'redis') return `Redis at ${endpointOf(location, 6379)}`;
  if (kind === 'postgres') return `PostgreSQL at ${endpointOf(location, 5432)}`;
  return `SQLite file ${location}`;
}

/**
 * Opens the store of `kind` at `location` (a URL, or a file's path) the way the app's is made,
 * failing fast: one connection attempt of `--timeout` ms, no retry.
 * @throws {@link StoreUnreachableError} when it cannot be reached (no URL in the message).
 */
export async function openStore(
  line: CommandLine,
  kind: StoreKind,
  location: string,
): Promise<OpenedStore> {
  if (kind === 'postgres') return openPostgres(line, location);
  if (kind === 'sqlite') return openSqlite(line, location);
  const { connectRedis } = await import('./connect-redis.js');
  const { RedisStore } = await import('@sluice/redis');
  const client = await connectRedis(location, line.cluster, line.timeoutMs);
  const store = new RedisStore({
    client,
    prefix: line.storePrefix ?? '',
    timeoutMs: line.timeoutMs,
  });
  return {
    store,
    close: async () => {
      await store.close().catch(() => undefined);
      client.disconnect();
    },
  };
}

/** The reason of a failed connection: a system error's code, else its message. */
function reasonOf(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
  return typeof e?.message === 'string' && e.message !== '' ? e.message : String(error);
}

async function openPostgres(line: CommandLine, url: string): Promise<OpenedStore> {
  const pg = (await import('pg')).default;
  const { PostgresStore } = await import('@sluice/postgres');
  const pool = new pg.Pool({
    connectionString: url,
    max: 2,
    connectionTimeoutMillis: line.timeoutMs,
    application_name: 'sluice-cli',
  });
  // An idle connection's error (the server going away) is seen by the next query.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new StoreUnreachableError(`cannot connect: ${reasonOf(error)}`);
  }
  const store = new PostgresStore({
    client: pool,
    timeoutMs: line.timeoutMs,
    sweepIntervalMs: 0,
    ...(line.schema === undefined ? {} : { schema: line.schema }),
    ...(line.table === undefined ? {} : { table: line.table }),
  });
  return {
    store,
    close: async () => {
      await store.close().catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}

/** What the CLI needs of a better-sqlite3 `Database` or a `node:sqlite` `DatabaseSync`. */
interface SqliteFile {
  prepare(sql: string): { get(...params: unknown[]): unknown };
  close(): void;
}

async function openSqlite(line: CommandLine, path: string): Promise<OpenedStore> {
  // A mistyped path must not become a new, empty database that no app reads.
  if (!existsSync(path)) {
    throw new StoreUnreachableError("no such file: pass the file the app's SqliteStore opens");
  }
  const database = await openDatabase(path);
  const table = line.table ?? 'sluice_limits';
  try {
    const found = database
      .prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(table);
    if (found === undefined) {
      throw new StoreUnreachableError(
        `no table ${table} in it: is it the file the app's SqliteStore opens (and its table, --table)?`,
      );
    }
    const { SqliteStore } = await import('@sluice/sqlite');
    const store = new SqliteStore({
      database: database as never,
      table,
      busyTimeoutMs: Math.ceil(line.timeoutMs),
      sweepIntervalMs: 0,
    });
    return {
      store,
      close: async () => {
        store.close();
        database.close();
      },
    };
  } catch (error) {
    database.close();
    throw error;
  }
}

/** The file opened with better-sqlite3 when it is installed, else `node:sqlite` (Node >= 22.13). */
async function openDatabase(path: string): Promise<SqliteFile> {
  let driver: new (file: string, options?: object) => SqliteFile;
  try {
    driver = (await import('better-sqlite3')).default as never;
  } catch {
    const name = 'node:sqlite';
    try {
      driver = ((await import(name)) as { DatabaseSync: typeof driver }).DatabaseSync;
    } catch {
      throw new StoreUnreachableError(
        'no SQLite driver: install better-sqlite3 beside @sluice/cli, or run it on Node >= 22.13 (node:sqlite)',
      );
    }
  }
  try {
    return new driver(path, { fileMustExist: true });
  } catch (error) {
    throw new StoreUnreachableError(`cannot open: ${reasonOf(error)}`);
  }
}
