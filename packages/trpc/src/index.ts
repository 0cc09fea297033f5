/**
 * `@sluice/trpc`: a tRPC procedure middleware limiting calls per user or IP with throttle
 * strings, `Limit`s and named limiters, throwing `TOO_MANY_REQUESTS` with `retryAfter`.
 *
 * @packageDocumentation
 */
export type { LimitInput, Store } from '@sluice/core';
export { Limit, MemoryStore, SluiceConfigError, ThrottleRegistry, throttles } from '@sluice/core';
export {
  RateLimitedError,
  retryAfterOf,
  sluiceErrorFormatter,
  sluiceResponseMeta,
} from './errors.js';
export type { SluiceTrpcOptions, TrpcCall } from './middleware.js';
export { sluiceTrpc } from './middleware.js';
