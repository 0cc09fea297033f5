/**
 * `@sluice/postgres`: `PostgresStore`, limits kept in PostgreSQL through `pg` or
 * postgres.js, every algorithm a PL/pgSQL twin of its TS step, on the database's clock.
 *
 * @packageDocumentation
 */
/** Re-exported from `@sluice/core/store`, where they are defined once for every store. */
export { StoreAbandonedError, StoreTimeoutError } from '@sluice/core/store';
export type { PgQueryable, PostgresClient, PostgresJsQuery, PostgresJsSql } from './client.js';
export { SUPPORTED_CLIENTS } from './client.js';
export type { PostgresStoreOptions } from './options.js';
export { PostgresStore } from './postgres-store.js';
