/**
 * @sluice/koa: the Koa adapter of sluice, a binding to the core's HTTP
 * pipeline. Re-exports the core's user-facing names, so `Limit`, `throttles` and
 * `MemoryStore` need no second package.
 *
 * @packageDocumentation
 */
import './types.js';

// The curated names of @sluice/core (its src/index.ts, reviewed in packages/core/test/exports/
// index.txt): one list, kept in the core; this package's export list shows each change too.
export * from '@sluice/core';
export { Throttle } from './decorators.js';
export type { KoaRateLimitOptions } from './rate-limit.js';
export { rateLimit, throttle } from './rate-limit.js';
