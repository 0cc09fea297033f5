/**
 * @sluice/express: the Express adapter of sluice, a binding to the core's HTTP
 * pipeline. Re-exports the core's user-facing names, so `Limit`, `throttles` and
 * `MemoryStore` need no second package.
 *
 * @packageDocumentation
 */
export * from '@sluice/core';
export { Throttle } from './decorators.js';
export { rateLimit, throttle } from './rate-limit.js';
export type { ExpressRateLimitOptions, RateLimitHandler } from './types.js';
