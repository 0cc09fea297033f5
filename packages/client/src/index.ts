/**
 * `@sluice/client`: the calling side of sluice. {@link pacedFetch} wraps a `fetch` so it
 * reads the server's rate-limit headers and waits before it is denied.
 *
 * @packageDocumentation
 */
export type { HeaderStyle } from '@sluice/core/shared';
export { SelfThrottledError, SluiceConfigError, WaitTooLongError } from './errors.js';
export {
  type HeadersLike,
  type ObservedPolicy,
  parseRateLimitHeaders,
  type RateLimitInfo,
  type ReadStyle,
} from './headers/parse.js';
export { DEFAULT_MAX_WAIT, DEFAULT_RETRIES, type PacedFetchOptions } from './options.js';
export { type FetchLike, pacedFetch } from './paced-fetch.js';
