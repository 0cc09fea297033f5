/**
 * `@sluice/sqlite`: `SqliteStore`, limits shared by the processes of one host in an SQLite
 * file, with no server: synchronous, one statement per decision, exact across processes.
 *
 * @packageDocumentation
 */
export type { SqliteDatabase, SqliteStatement } from './database.js';
export { SUPPORTED_DATABASES } from './database.js';
export type { SqliteStoreOptions } from './options.js';
export { SqliteStore } from './sqlite-store.js';
