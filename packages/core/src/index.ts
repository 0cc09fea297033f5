/**
 * `@sluice/core`: what application authors write with: the algorithm factories, the
 * `Limit` builder, throttle strings and named limiters, `RateLimiter`, `MemoryStore`, the
 * `@SkipThrottle()` decorator, and the types of the HTTP options every adapter takes.
 *
 * Store and algorithm authors (and sibling packages such as `@sluice/redis`) use
 * `@sluice/core/store`; adapter authors use `@sluice/core/http`.
 *
 * @packageDocumentation
 */

export type { AdaptiveOptions, AdaptivePriority } from './adaptive/options.js';
export type {
  CalendarDayOptions,
  CalendarMonthOptions,
  CalendarWeekOptions,
} from './algorithms/calendar.js';
export type { ConcurrencyOptions } from './algorithms/concurrency.js';
export { concurrency } from './algorithms/concurrency.js';
export type { CellReply, Decision } from './algorithms/decision.js';
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
export { parseDuration } from './common/duration.js';
export { SluiceConfigError } from './common/errors.js';
export type { MeterLike, MeterProviderLike, MetricAttributes } from './http/metrics/meter.js';
export type { MetricsOption, RequestResult } from './http/metrics/metrics.js';
export { METER_NAME } from './http/metrics/metrics.js';
export type { HttpLimitOptions } from './http/options/options.js';
export type { MethodDecorator } from './http/request/decorators.js';
export { SkipThrottle } from './http/request/decorators.js';
export { ipSubject } from './http/request/keys.js';
export type { ValidateOptions } from './http/request/proxy-warnings.js';
export type { BodyStyle, QuotaExceededProblem } from './http/verdict/denial.js';
export { QUOTA_EXCEEDED_TITLE, QUOTA_EXCEEDED_TYPE } from './http/verdict/denial.js';
export type { HeaderStyle, HeaderStyleName, HeadersOption } from './http/verdict/headers.js';
export type {
  OpenApiHeaderObject,
  OpenApiResponseObject,
  OpenApiResponses,
  OpenApiSchemaObject,
} from './http/verdict/openapi.js';
export { openApiResponses } from './http/verdict/openapi.js';
export type { LimitedInfo, LimitMode } from './http/verdict/shadow.js';
export type { HttpVerdict } from './http/verdict/verdict.js';
export type {
  CostAfter,
  CostAfterOptions,
  LimitAlgorithmFactory,
  LimitQuota,
} from './limits/limit.js';
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
export type { LimitInput, LimitResolver } from './limits/throttle-registry.js';
export { ThrottleRegistry, throttles } from './limits/throttle-registry.js';
export type { ThrottleSpec } from './limits/throttle-string.js';
export { parseThrottle } from './limits/throttle-string.js';
export type {
  OperationEntry,
  OperationKind,
  OperationSubject,
  SubjectInput,
} from './operations/entry.js';
export type {
  BanOptions,
  InspectedLimit,
  Inspection,
  LimitOperationsOptions,
  ListOptions,
  OverrideOptions,
  TopEntry,
} from './operations/limit-operations.js';
export { LimitOperations } from './operations/limit-operations.js';
export type { ProtocolCheckOptions, ProtocolLimiterOptions } from './protocol/protocol-limiter.js';
export { ProtocolLimiter } from './protocol/protocol-limiter.js';
export type { ProtocolRequest, ProtocolStoreOptions } from './protocol/protocol-options.js';
export {
  PROTOCOL_STORE_OPTIONS,
  protocolStoreOptions,
  protocolView,
} from './protocol/protocol-options.js';
export type { ProtocolCharge } from './protocol/protocol-verdict.js';
export { ProtocolVerdict, parseHeaderStyles } from './protocol/protocol-verdict.js';
export type { CircuitBreakerOptions } from './store-failure/circuit-breaker.js';
export type { OverLimitCacheOptions } from './store-failure/over-limit-cache.js';
export type { StoreErrorPolicy, StoreFailureLogger } from './store-failure/store-failure.js';
export { StoreNotReadyError } from './store-failure/store-not-ready-error.js';
export type { MemoryStoreSnapshot } from './stores/memory-snapshot.js';
export type { MemoryStoreOptions } from './stores/memory-store.js';
export { MemoryStore } from './stores/memory-store.js';
export type { Store } from './stores/store.js';
