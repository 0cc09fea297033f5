import { StoreNotReadyError } from '@sluice/core/store';
import type { SqlClient } from './client.js';
import type { SqlNames } from './sql/names.js';

/** What to do when the store's objects are missing (in every such message). */
const MIGRATE_FIX =
  'run `await store.migrate()` once (at deploy or start-up) before the first decision';

/**
 * PostgreSQL's codes for a missing object: undefined table (42P01), function (42883),
 * schema (3F000). Both pg and postgres.js put the SQLSTATE in `code`.
 */
const MISSING = new Set(['42P01', '42883', '3F000']);

/** The store's error for its missing table or functions, naming `migrate()`. */
export function notMigrated(table: string): StoreNotReadyError {
  return new StoreNotReadyError(
    'PostgresStore',
    `its table ${table} or its functions do not exist (or are from an older version)`,
    MIGRATE_FIX,
  );
}

/**
 * `sql` whose failures for a missing table, function or schema reject with
 * {@link notMigrated} instead of PostgreSQL's message (which the store-failure log would
 * cut off before "does not exist", with no hint at the fix).
 */
export function withMigrationHint(sql: SqlClient, table: string): SqlClient {
  const hint = (error: unknown): never => {
    const code = (error as { code?: unknown } | null)?.code;
    throw typeof code === 'string' && MISSING.has(code) ? notMigrated(table) : error;
  };
  return {
    kind: sql.kind,
    value: (text, values, name) => sql.value(text, values, name).catch(hint),
    transaction: (text) => sql.transaction(text),
    listen: (channel, events) => sql.listen(channel, events),
  };
}

/** The signature of the decide function the batcher calls (`to_regprocedure` form). */
const DECIDE_ARGS =
  'text[], int[], int[], int[], int[], float8[], float8[], float8[], text[], float8[], int[], int[], float8';

/** The signature of the partial-grant function (`to_regprocedure` form). */
const AT_MOST_ARGS = 'text, float8[], float8, float8, float8[]';

/**
 * One statement: whether the table, the operator-entry tables and this version's decide
 * and partial-grant functions all exist (a migration of an older version has another signature).
 */
export function readySql(names: SqlNames): string {
  const tables = [names.table, names.fn('ops'), names.fn('ops_version')];
  const checks = tables.map((t) => `to_regclass(${literal(t)}) IS NOT NULL`);
  checks.push(`to_regprocedure(${literal(`${names.fn('decide')}(${DECIDE_ARGS})`)}) IS NOT NULL`);
  // consumeAtMost's partial grant, which the decide function calls (added after 0.2.0's first
  // migrations: a database migrated before it must migrate again)
  checks.push(`to_regprocedure(${literal(`${names.fn('at_most')}(${AT_MOST_ARGS})`)}) IS NOT NULL`);
  return `SELECT ${checks.join(' AND ')}`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
