/**
 * The two PostgreSQL clients the store takes, told apart by shape, behind one
 * {@link SqlClient}: a `pg` `Pool` (or `Client`), and a postgres.js `sql` function.
 */

/** A `pg` Pool or Client, as far as the store uses it. */
export interface PgQueryable {
  /** Runs one statement (`rowMode: 'array'`; `name`: a prepared statement). */
  query(config: {
    text: string;
    values?: unknown[];
    name?: string;
    rowMode?: 'array';
  }): Promise<{ rows: unknown[][] }>;
  /** Present on a Pool and a Client: how `pg` is told apart from other objects with `query`. */
  connect?: unknown;
}

/** What runs a query in postgres.js: its `sql`, or a transaction's. */
export interface PostgresJsQuery {
  /** Runs `query` with `parameters` (`prepare: true`: a named prepared statement). */
  unsafe(
    query: string,
    parameters?: never[],
    options?: { prepare?: boolean },
  ): PromiseLike<readonly Record<string, unknown>[]>;
}

/** A postgres.js `sql` function (`postgres(url)`), as far as the store uses it. */
export interface PostgresJsSql extends PostgresJsQuery {
  (...args: never[]): unknown;
  /** Runs `run` in one transaction (the migration). */
  begin(run: (tx: PostgresJsQuery) => PromiseLike<unknown>): PromiseLike<unknown>;
  /**
   * `LISTEN` on postgres.js's own listening connection (operator entries); `onlisten` runs
   * after each (re)subscription.
   */
  listen?(
    channel: string,
    onnotify: (payload: string) => void,
    onlisten?: () => void,
  ): PromiseLike<{ unlisten(): PromiseLike<unknown> }>;
}

/** What {@link PostgresStore} takes as `client`. */
export type PostgresClient = PgQueryable | PostgresJsSql;

/** One query runner over either client. */
export interface SqlClient {
  /** Which client it is, for tools and tests. */
  readonly kind: 'pg' | 'postgres.js';
  /**
   * Runs `text` with `values` and resolves to the first column of the first row, or
   * `undefined` without rows. `name`: a prepared statement's name (pg), prepared either way.
   */
  value(text: string, values: unknown[], name?: string): Promise<unknown>;
  /** Runs a script of several statements (no parameters) in one transaction. */
  transaction(text: string): Promise<void>;
  /**
   * Listens on `channel` on a connection that is not the client's own (pg: a `Client` the
   * store opens, named {@link LISTEN_APPLICATION_NAME}; postgres.js: `sql.listen`), and keeps
   * listening after the connection is lost (`events.listening` after each (re)subscription:
   * notifications sent meanwhile were lost).
   */
  listen(channel: string, events: ListenEvents): Listening;
}

/** What a listening connection tells its owner. */
export interface ListenEvents {
  /** A notification's payload. */
  notify(payload: string): void;
  /** The `LISTEN` is (again) in place. */
  listening(): void;
}

/** A `LISTEN` in place; `close()` stops it (and closes the connection the store opened). */
export interface Listening {
  close(): Promise<void>;
}

/**
 * The `application_name` of the connection a `pg` client's store opens to listen for
 * operator entries (unless the connection string sets one): what to look for in
 * `pg_stat_activity`.
 */
const LISTEN_APPLICATION_NAME = 'sluice-listen';

/** What a client that is neither is told (SluiceConfigError's `expected`). */
export const SUPPORTED_CLIENTS =
  'a pg Pool or Client (`new pg.Pool()`) or a postgres.js sql (`postgres()`)';

/** The {@link SqlClient} of `client`, or undefined when it is neither kind. */
export function sqlClient(client: unknown): SqlClient | undefined {
  if (typeof client === 'function' && typeof (client as PostgresJsSql).unsafe === 'function') {
    const sql = client as PostgresJsSql;
    return {
      kind: 'postgres.js',
      async value(text, values) {
        const rows = await sql.unsafe(text, values as never[], { prepare: true });
        const row = rows[0];
        return row === undefined ? undefined : Object.values(row)[0];
      },
      async transaction(text) {
        await sql.begin((tx) => tx.unsafe(text));
      },
      listen: (channel, events) => postgresJsListen(sql, channel, events),
    };
  }
  if (
    client !== null &&
    typeof client === 'object' &&
    typeof (client as PgQueryable).query === 'function' &&
    typeof (client as PgQueryable).connect === 'function'
  ) {
    const pg = client as PgQueryable;
    return {
      kind: 'pg',
      async value(text, values, name) {
        const result = await pg.query({ text, values, rowMode: 'array', name });
        return result.rows[0]?.[0];
      },
      async transaction(text) {
        await pg.query({ text: `BEGIN;\n${text}\nCOMMIT;` });
      },
      listen: (channel, events) => pgListen(pg, channel, events),
    };
  }
  return undefined;
}

const ignore = () => undefined;

/** Waits before the n-th attempt to listen again: 100 ms doubling, at most 5 s. */
function backoff(attempt: number): number {
  return Math.min(5000, 100 * 2 ** Math.min(attempt, 6));
}

/** Runs `run` after `ms` without keeping the process alive. */
function later(run: () => void, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(run, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

/** A `pg` Client as far as listening goes. */
interface PgListenClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<unknown>;
  on(event: string, listener: (...args: never[]) => void): unknown;
  readonly connection?: { readonly stream?: { unref?(): void } };
}

/**
 * The settings of a connection of `pg`'s: a Pool's options, or a Client's parameters
 * (its password kept), with the class that makes it.
 */
function pgConnectionOf(pg: PgQueryable): {
  Client: new (config: object) => PgListenClient;
  config: Record<string, unknown>;
} {
  const pool = pg as { Client?: unknown; options?: Record<string, unknown> };
  if (typeof pool.Client === 'function' && pool.options !== undefined) {
    const config = { ...pool.options, password: pool.options.password };
    return { Client: pool.Client as new (config: object) => PgListenClient, config };
  }
  const client = pg as unknown as {
    connectionParameters?: Record<string, unknown>;
    password?: unknown;
    constructor: new (config: object) => PgListenClient;
  };
  const p = client.connectionParameters ?? {};
  const config: Record<string, unknown> = {
    user: p.user,
    database: p.database,
    port: p.port,
    host: p.host,
    password: client.password ?? p.password,
    ssl: p.ssl,
  };
  return { Client: client.constructor, config };
}

/**
 * `LISTEN` on a `pg` `Client` of the store's own, with the user's client's settings and
 * `application_name` {@link LISTEN_APPLICATION_NAME}; made again (100 ms, then doubling up
 * to 5 s) whenever it is lost, until the user's Pool or Client ends. Its socket never keeps
 * the process alive; `close()` ends it.
 */
function pgListen(pg: PgQueryable, channel: string, events: ListenEvents): Listening {
  const { Client, config } = pgConnectionOf(pg);
  const settings = { ...config, application_name: LISTEN_APPLICATION_NAME };
  let current: PgListenClient | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let closed = false;
  const user = pg as { ending?: boolean; ended?: boolean; _ending?: boolean; on?: unknown };
  // The user's Pool or Client ended: so does the listening (it is not made again).
  const ended = () => user.ending === true || user.ended === true || user._ending === true;
  if (typeof user.on === 'function' && !('Client' in user)) {
    (pg as unknown as PgListenClient).on('end', () => {
      closed = true;
      current?.end().catch(ignore);
      current = undefined;
    });
  }
  const lost = (client: PgListenClient) => {
    if (current !== client) return;
    current = undefined;
    client.end().catch(ignore);
    if (closed || ended() || timer !== undefined) return;
    timer = later(() => {
      timer = undefined;
      void open();
    }, backoff(attempt++));
  };
  const open = async () => {
    if (closed || ended()) return;
    let client: PgListenClient;
    try {
      client = new Client(settings);
    } catch {
      closed = true; // the environment is gone (a test runner torn down): nothing to listen on
      return;
    }
    current = client;
    client.on('error', () => lost(client));
    client.on('end', () => lost(client));
    client.on('notification', ((message: { channel: string; payload?: string }) => {
      if (message.channel === channel) events.notify(message.payload ?? '');
    }) as (...args: never[]) => void);
    try {
      await client.connect();
      client.connection?.stream?.unref?.();
      await client.query(`LISTEN "${channel}"`);
    } catch {
      lost(client);
      return;
    }
    if (current !== client) return;
    attempt = 0;
    events.listening();
  };
  void open();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      const client = current;
      current = undefined;
      await client?.end().catch(ignore);
    },
  };
}

/**
 * `sql.listen` of postgres.js: its own listening connection, which it makes again after a
 * loss (and then calls `onlisten`). A subscription that fails is tried again (100 ms, then
 * doubling up to 5 s). `close()` unlistens; postgres.js closes that connection on `sql.end()`.
 */
function postgresJsListen(sql: PostgresJsSql, channel: string, events: ListenEvents): Listening {
  let closed = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let handle: { unlisten(): PromiseLike<unknown> } | undefined;
  const open = () => {
    if (closed || typeof sql.listen !== 'function') return;
    Promise.resolve(
      sql.listen(
        channel,
        (payload) => events.notify(payload),
        () => events.listening(),
      ),
    ).then(
      (h) => {
        attempt = 0;
        if (closed) void Promise.resolve(h.unlisten()).catch(ignore);
        else handle = h;
      },
      () => {
        if (closed) return;
        timer = later(open, backoff(attempt++));
      },
    );
  };
  open();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      const h = handle;
      handle = undefined;
      await Promise.resolve(h?.unlisten()).catch(ignore);
    },
  };
}
