import type { PostgresStoreConfig } from '../options.js';
import { decideSql } from './decide.sql.js';
import { fixedWindowSql } from './fixed-window.sql.js';
import { gcraSql } from './gcra.sql.js';
import type { SqlNames } from './names.js';
import { operationsSql } from './operations.sql.js';
import { penaltySql } from './penalty.sql.js';
import { slidingLogSql } from './sliding-log.sql.js';
import { slidingWindowSql } from './sliding-window.sql.js';

/**
 * The whole migration: the table and every function, to run in one transaction, under an advisory
 * lock (two processes migrating at once would otherwise fail on `CREATE OR REPLACE
 * FUNCTION`'s "tuple concurrently updated").
 */
export function migrationSql(
  q: SqlNames,
  config: Pick<PostgresStoreConfig, 'logged'>,
  channel: string,
): string {
  return [
    `SELECT pg_advisory_xact_lock(hashtext('sluice:' || ${literal(q.table)}));`,
    decideSql(q, config.logged),
    gcraSql(q),
    fixedWindowSql(q),
    slidingWindowSql(q),
    slidingLogSql(q),
    penaltySql(q),
    operationsSql(q, channel),
  ].join('\n');
}

/** `text` as an SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
