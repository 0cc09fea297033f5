/**
 * `@sluice/core`: what users write: the algorithms, stores, `RateLimiter`,
 * limits, throttle strings and named limiters, and the types of the HTTP options every
 * adapter takes. Adapter plumbing is on the `@sluice/core/http` subpath.
 *
 * @packageDocumentation
 */
export type {
  Algorithm,
  AlgorithmFamily,
  AlgorithmKind,
  RefundResult,
  State,
  StepResult,
} from './algorithms/algorithm.js';
export { expiryOf } from './algorithms/algorithm.js';
export type {
  CalendarDayOptions,
  CalendarMonthOptions,
  CalendarPeriod,
  CalendarUnit,
  CalendarWeekOptions,
} from './algorithms/calendar.js';
export { calendarEdges, calendarWindow } from './algorithms/calendar.js';
export { CalendarWindowAlgorithm, calendarQuota } from './algorithms/calendar-window.js';
export type { ConcurrencyOptions } from './algorithms/concurrency.js';
export { ConcurrencyAlgorithm, concurrency, DEFAULT_LEASE_MS } from './algorithms/concurrency.js';
export type { CellReply, Decision } from './algorithms/decision.js';
export { toCellReply } from './algorithms/decision.js';
export { FixedWindowAlgorithm, fixedWindow } from './algorithms/fixed-window.js';
export type { GcraOptions } from './algorithms/gcra.js';
export { cellThrottle, GcraAlgorithm, gcra } from './algorithms/gcra.js';
export type { LeakyBucketOptions } from './algorithms/leaky-bucket.js';
export { leakyBucket } from './algorithms/leaky-bucket.js';
export type { Penalty, PenaltyOptions } from './algorithms/penalty.js';
export {
  blocked,
  DEFAULT_MAX_BLOCK_MS,
  PenaltyAlgorithm,
  parsePenalty,
  penalty,
} from './algorithms/penalty.js';
export type { Rate } from './algorithms/rate.js';
export { SlidingLogAlgorithm, slidingLog } from './algorithms/sliding-log.js';
export { SlidingWindowAlgorithm, slidingWindow } from './algorithms/sliding-window.js';
export type { TokenBucketOptions } from './algorithms/token-bucket.js';
export { tokenBucket } from './algorithms/token-bucket.js';
export { WindowAlgorithm } from './algorithms/window-algorithm.js';
export type { WindowOptions } from './algorithms/window-options.js';
export type { Duration } from './common/duration.js';
export { parseDuration } from './common/duration.js';
export { isRedisClientLike, SluiceConfigError } from './common/errors.js';
export type { MethodDecorator } from './http/decorators.js';
export { SkipThrottle } from './http/decorators.js';
export type { HeaderStyle, HeaderStyleName, HeadersOption } from './http/headers.js';
export { ipSubject } from './http/keys.js';
export type {
  MeterLike,
  MeterProviderLike,
  MetricAttributes,
  MetricsOption,
  RequestResult,
} from './http/metrics.js';
export { METER_NAME } from './http/metrics.js';
export type { HttpLimitOptions } from './http/options.js';
export type { BodyStyle, QuotaExceededProblem } from './http/problem.js';
export { QUOTA_EXCEEDED_TITLE, QUOTA_EXCEEDED_TYPE } from './http/problem.js';
export type { RequestView } from './http/request-view.js';
export type { LimitedInfo, LimitMode } from './http/shadow.js';
export type { HttpVerdict } from './http/verdict.js';
export type {
  CostAfter,
  CostAfterOptions,
  LimitAlgorithmFactory,
  LimitQuota,
} from './limits/limit.js';
export { defaultLimitAlgorithm, Limit, limitAlgorithm } from './limits/limit.js';
export type {
  AcquireOptions,
  ConsumeOptions,
  RateLimiterOptions,
  RefundOptions,
} from './limits/rate-limiter.js';
export { RateLimiter } from './limits/rate-limiter.js';
export type {
  LimitInput,
  LimitResolver,
  ResolvedLimitEntry,
  ResolvedLimits,
} from './limits/throttle-registry.js';
export { resolveLimitInput, ThrottleRegistry, throttles } from './limits/throttle-registry.js';
export type { ThrottleSpec } from './limits/throttle-string.js';
export { parseThrottle, THROTTLE_NAME } from './limits/throttle-string.js';
export type {
  BreakerState,
  BreakerTicket,
  CircuitBreakerOptions,
} from './store-failure/circuit-breaker.js';
export { CircuitBreaker, DEFAULT_COOLDOWN_MS } from './store-failure/circuit-breaker.js';
export type { OverLimitCacheOptions } from './store-failure/over-limit-cache.js';
export { DEFAULT_OVER_LIMIT_KEYS, OverLimitCache } from './store-failure/over-limit-cache.js';
export type { StoreErrorPolicy, StoreFailureLogger } from './store-failure/store-failure.js';
export { DENY_RETRY_MS, FailSafeStore } from './store-failure/store-failure.js';
export type { MemoryKeySpace, MemoryStoreOptions } from './stores/memory-store.js';
export { MemoryStore } from './stores/memory-store.js';
export type { Store, StoreRequest } from './stores/store.js';
export {
  chargeTimeOf,
  consumeEach,
  fullKey,
  recordChargeTime,
  scopeOf,
  withChargeTime,
} from './stores/store.js';
