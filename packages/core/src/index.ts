/**
 * `@sluice/core`: what users write: the algorithms, stores, `RateLimiter`,
 * limits, throttle strings and named limiters, and the types of the HTTP options every
 * adapter takes. Adapter plumbing is on the `@sluice/core/http` subpath.
 *
 * @packageDocumentation
 */
export type { Algorithm, AlgorithmKind, RefundResult, State, StepResult } from './algorithm.js';
export { expiryOf } from './algorithm.js';
export type {
  BreakerState,
  BreakerTicket,
  CircuitBreakerOptions,
} from './circuit-breaker.js';
export { CircuitBreaker, DEFAULT_COOLDOWN_MS } from './circuit-breaker.js';
export type { ConcurrencyOptions } from './concurrency.js';
export { ConcurrencyAlgorithm, concurrency, DEFAULT_LEASE_MS } from './concurrency.js';
export type { CellReply, Decision } from './decision.js';
export { toCellReply } from './decision.js';
export type { Duration } from './duration.js';
export { parseDuration } from './duration.js';
export { isRedisClientLike, SluiceConfigError } from './errors.js';
export { FixedWindowAlgorithm, fixedWindow } from './fixed-window.js';
export type { GcraOptions } from './gcra.js';
export { cellThrottle, GcraAlgorithm, gcra } from './gcra.js';
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
export type { LeakyBucketOptions } from './leaky-bucket.js';
export { leakyBucket } from './leaky-bucket.js';
export type { LimitAlgorithmFactory, LimitQuota } from './limit.js';
export { defaultLimitAlgorithm, Limit, limitAlgorithm } from './limit.js';
export type { MemoryKeySpace, MemoryStoreOptions } from './memory-store.js';
export { MemoryStore } from './memory-store.js';
export type { OverLimitCacheOptions } from './over-limit-cache.js';
export { DEFAULT_OVER_LIMIT_KEYS, OverLimitCache } from './over-limit-cache.js';
export type { Penalty, PenaltyOptions } from './penalty.js';
export {
  blocked,
  DEFAULT_MAX_BLOCK_MS,
  PenaltyAlgorithm,
  parsePenalty,
  penalty,
} from './penalty.js';
export type { Rate } from './rate.js';
export type {
  AcquireOptions,
  ConsumeOptions,
  RateLimiterOptions,
  RefundOptions,
} from './rate-limiter.js';
export { RateLimiter } from './rate-limiter.js';
export { SlidingLogAlgorithm, slidingLog } from './sliding-log.js';
export { SlidingWindowAlgorithm, slidingWindow } from './sliding-window.js';
export type { Store, StoreRequest } from './store.js';
export {
  chargeTimeOf,
  consumeEach,
  fullKey,
  recordChargeTime,
  scopeOf,
  withChargeTime,
} from './store.js';
export type { StoreErrorPolicy, StoreFailureLogger } from './store-failure.js';
export { DENY_RETRY_MS, FailSafeStore } from './store-failure.js';
export type {
  LimitInput,
  LimitResolver,
  ResolvedLimitEntry,
  ResolvedLimits,
} from './throttle-registry.js';
export { resolveLimitInput, ThrottleRegistry, throttles } from './throttle-registry.js';
export type { ThrottleSpec } from './throttle-string.js';
export { parseThrottle, THROTTLE_NAME } from './throttle-string.js';
export type { TokenBucketOptions } from './token-bucket.js';
export { tokenBucket } from './token-bucket.js';
export { WindowAlgorithm } from './window-algorithm.js';
export type { WindowOptions } from './window-options.js';
