export type { Algorithm, AlgorithmKind, State, StepResult } from './algorithm.js';
export { expiryOf } from './algorithm.js';
export type {
  BreakerState,
  BreakerTicket,
  CircuitBreakerOptions,
} from './circuit-breaker.js';
export { CircuitBreaker, DEFAULT_COOLDOWN_MS } from './circuit-breaker.js';
export type { CellReply, Decision } from './decision.js';
export { toCellReply } from './decision.js';
export type { MethodDecorator } from './decorators.js';
export {
  isThrottleSkipped,
  markSkipThrottle,
  methodDecorator,
  SKIP_THROTTLE,
  SkipThrottle,
} from './decorators.js';
export type { Duration } from './duration.js';
export { parseDuration } from './duration.js';
export { SluiceConfigError } from './errors.js';
export { FixedWindowAlgorithm, fixedWindow } from './fixed-window.js';
export type { GcraOptions } from './gcra.js';
export { cellThrottle, GcraAlgorithm, gcra } from './gcra.js';
export type { HeaderStyle, HeadersOption, PolicyDecision } from './headers.js';
export { ceilSeconds, rateLimitHeaders, retryAfterSeconds } from './headers.js';
export type { AlgorithmName, HttpLimitOptions, HttpVerdict } from './http-limiter.js';
export { HttpLimiter } from './http-limiter.js';
export type { LeakyBucketOptions } from './leaky-bucket.js';
export { leakyBucket } from './leaky-bucket.js';
export type { LimitAlgorithmFactory, LimitQuota } from './limit.js';
export { defaultLimitAlgorithm, Limit, limitAlgorithm } from './limit.js';
export type { MemoryKeySpace, MemoryStoreOptions } from './memory-store.js';
export { MemoryStore } from './memory-store.js';
export type { AcquireOptions, ConsumeOptions, RateLimiterOptions } from './rate-limiter.js';
export { RateLimiter } from './rate-limiter.js';
export { ipSubject, keySegment, MAX_SEGMENT_LENGTH } from './request-key.js';
export { LazyRequestView, type RequestView } from './request-view.js';
export { SlidingLogAlgorithm, slidingLog } from './sliding-log.js';
export { SlidingWindowAlgorithm, slidingWindow } from './sliding-window.js';
export type { Store } from './store.js';
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
