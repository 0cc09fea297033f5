/**
 * `@sluice/trpc`: a tRPC procedure middleware limiting calls per user or IP with throttle
 * strings, `Limit`s and named limiters, throwing `TOO_MANY_REQUESTS` with `retryAfter`.
 *
 * @packageDocumentation
 */
// The application author's names of @sluice/core (its src/index.ts, reviewed in
// packages/core/test/exports/index.txt), as every adapter re-exports them; this package's
// export list shows each change too.
export * from '@sluice/core';
export {
  RateLimitedError,
  retryAfterOf,
  sluiceErrorFormatter,
  sluiceResponseMeta,
} from './errors.js';
export type { SluiceTrpcOptions, TrpcCall } from './middleware.js';
export { sluiceTrpc } from './middleware.js';
