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
}

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
    };
  }
  return undefined;
}
