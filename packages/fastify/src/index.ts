/**
 * @sluice/fastify: the Fastify adapter of sluice, a binding to the core's HTTP
 * pipeline. Re-exports the core's user-facing names, so `Limit`, `throttles` and
 * `MemoryStore` need no second package.
 *
 * @packageDocumentation
 */
export * from '@sluice/core';
export { Throttle } from './decorators.js';
export { rateLimit } from './plugin.js';
export type {
  ErrorResponseBuilder,
  FastifyRateLimitOptions,
  PeerOptionNames,
  RateLimitHook,
  RouteRateLimit,
  RouteRateLimitOptions,
} from './types.js';
