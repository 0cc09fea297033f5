/**
 * `@sluice/core`: what application authors write with (at most 60 names, a reviewed list in
 * `test/exports/index.txt`): the algorithm factories and their options, the `Limit` builder
 * and named limiters, `RateLimiter`, `MemoryStore`, `LimitOperations`, the `@SkipThrottle()`
 * decorator, the errors an application catches, and the option types it writes. Every
 * adapter re-exports exactly these names.
 *
 * Front-door authors (GraphQL, WebSocket, tRPC, AI SDK) use `@sluice/core/protocol`; HTTP
 * adapter authors `@sluice/core/http`; store and algorithm authors (and sibling packages
 * such as `@sluice/redis`) `@sluice/core/store`.
 *
 @packageDocumentation
 */

export type { AdaptiveOptions, AdaptivePriority } from './adaptive/options.js';
export type {
  CalendarDayOptions,
  CalendarMonthOptions,
  CalendarWeekOptions,
} from './algorithms/calendar.js';
export type { ConcurrencyOptions } from './algorithms/concurrency.js';
export { concurrency } from './algorithms/concurrency.js';
export type { Decision } from './algorithms/decision.js';
export { toCellReply } from './algorithms/decision.js';
export { fixedWindow } from './algorithms/fixed-window.js';
export type { GcraOptions } from './algorithms/gcra.js';
export { cellThrottle, gcra } from './algorithms/gcra.js';
export type { LeakyBucketOptions } from './algorithms/leaky-bucket.js';
export { leakyBucket } from './algorithms/leaky-bucket.js';
export { provideLuxon } from './algorithms/luxon.js';
export type { PenaltyOptions } from './algorithms/penalty.js';
export { penalty } from './algorithms/penalty.js';
export type { Rate } from './algorithms/rate.js';
export { slidingLog } from './algorithms/sliding-log.js';
export { slidingWindow } from './algorithms/sliding-window.js';
export type { TokenBucketOptions } from './algorithms/token-bucket.js';
export { tokenBucket } from './algorithms/token-bucket.js';
export type { WindowOptions } from './algorithms/window-options.js';
export type { Duration } from './common/duration.js';
export { SluiceConfigError } from './common/errors.js';
export type { MetricsOption } from './http/metrics/metrics.js';
export type { HttpLimitOptions } from './http/options/options.js';
export { SkipThrottle } from './http/request/decorators.js';
export { ipSubject } from './http/request/keys.js';
export type { HeadersOption } from './http/verdict/headers.js';
export type { OpenApiResponses } from './http/verdict/openapi.js';
export { openApiResponses } from './http/verdict/openapi.js';
export type { LimitedInfo, LimitMode } from './http/verdict/shadow.js';
export type { CostAfter, CostAfterOptions } from './limits/limit.js';
export { Limit } from './limits/limit-factories.js';
export { RateLimitedError } from './limits/rate-limited-error.js';
export type {
  AcquireOptions,
  ConsumeOptions,
  RateLimiterOptions,
  RefundOptions,
  Reservation,
  ReserveOptions,
} from './limits/rate-limiter.js';
export { RateLimiter } from './limits/rate-limiter.js';
export type { RequestView } from './limits/request-view.js';
export type { LimitInput } from './limits/throttle-registry.js';
export { ThrottleRegistry, throttles } from './limits/throttle-registry.js';
export type { SubjectInput } from './operations/entry.js';
export type {
  BanOptions,
  LimitOperationsOptions,
  ListOptions,
  OverrideOptions,
} from './operations/limit-operations.js';
export { LimitOperations } from './operations/limit-operations.js';
export { StoreNotReadyError } from './store-failure/store-not-ready-error.js';
export type { MemoryStoreOptions } from './stores/memory-store.js';
export { MemoryStore } from './stores/memory-store.js';
export type { Store } from './stores/store.js';
