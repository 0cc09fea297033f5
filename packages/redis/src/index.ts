/**
 * `@sluice/redis`: `RedisStore`, the store that keeps limits in Redis (standalone or
 * Cluster) with a Lua twin of every algorithm, one round trip per decision. Its scripts'
 * sources are `LUA_SOURCES`, for review and for `SCRIPT LOAD` in locked-down deployments.
 *
 * @packageDocumentation
 */

/** Re-exported from `@sluice/core/store`, where they are defined once for every store. */
export { StoreAbandonedError, StoreTimeoutError } from '@sluice/core/store';
export type { RedisClient } from './clients/client.js';
export { SUPPORTED_CLIENTS } from './clients/client.js';
export { MIN_REDIS_VERSION, RedisVersionError } from './clients/version.js';
export type { OperationsOptions, RedisStoreOptions } from './options.js';
export { PrefetchLostError } from './prefetch/lost-error.js';
export type { PrefetchOptions } from './prefetch/options.js';
export { LUA_SOURCES, RedisStore } from './redis-store.js';
