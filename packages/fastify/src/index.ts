/**
 * @sluice/fastify: the Fastify adapter of sluice, a binding to the core's HTTP
 * pipeline. Re-exports the core's user-facing names, so `Limit`, `throttles` and
 * `MemoryStore` need no second package.
 *
 * @packageDocumentation
 */
// The curated names of @sluice/core (its src/index.ts, reviewed in packages/core/test/exports/
// index.txt): one list, kept in the core; this package's export list shows each change too.
export * from '@sluice/core';
export { Throttle } from './decorators.js';
export { rateLimit } from './plugin.js';
export type {
  ErrorResponse,
  ErrorResponseBuilder,
  FastifyRateLimitOptions,
  PeerOptionNames,
  RateLimitHook,
  RouteRateLimit,
  RouteRateLimitOptions,
} from './types.js';
