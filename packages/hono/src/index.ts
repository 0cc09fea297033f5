/**
 * @sluice/hono: sluice's Hono middleware, on every runtime Hono runs on (Node, Bun, Deno,
 * Cloudflare Workers): `rateLimit` (global), `throttle` (per route), `c.get('rateLimit')`.
 * Built on @sluice/fetch's binding to the core's HTTP pipeline. Re-exports the core's
 * user-facing names and the IP resolvers.
 *
 * @packageDocumentation
 */
export type {
  AcquireOptions,
  BodyStyle,
  CalendarDayOptions,
  CalendarMonthOptions,
  CalendarWeekOptions,
  CellReply,
  CircuitBreakerOptions,
  ConcurrencyOptions,
  ConsumeOptions,
  CostAfter,
  CostAfterOptions,
  Decision,
  Duration,
  GcraOptions,
  HeaderStyle,
  HeaderStyleName,
  HeadersOption,
  HttpLimitOptions,
  HttpVerdict,
  LeakyBucketOptions,
  LimitAlgorithmFactory,
  LimitedInfo,
  LimitInput,
  LimitMode,
  LimitQuota,
  LimitResolver,
  MemoryStoreOptions,
  MeterLike,
  MeterProviderLike,
  MethodDecorator,
  MetricAttributes,
  MetricsOption,
  OverLimitCacheOptions,
  PenaltyOptions,
  QuotaExceededProblem,
  Rate,
  RateLimiterOptions,
  RefundOptions,
  RequestResult,
  RequestView,
  Store,
  StoreErrorPolicy,
  StoreFailureLogger,
  ThrottleSpec,
  TokenBucketOptions,
  ValidateOptions,
  WindowOptions,
} from '@sluice/core';
// The core's user-facing names, listed: a name added to @sluice/core is re-exported here by a
// reviewed change (the export-names test lists both).
export {
  cellThrottle,
  concurrency,
  fixedWindow,
  gcra,
  ipSubject,
  Limit,
  leakyBucket,
  METER_NAME,
  MemoryStore,
  parseDuration,
  parseThrottle,
  penalty,
  provideLuxon,
  QUOTA_EXCEEDED_TITLE,
  QUOTA_EXCEEDED_TYPE,
  RateLimiter,
  SkipThrottle,
  SluiceConfigError,
  slidingLog,
  slidingWindow,
  ThrottleRegistry,
  throttles,
  toCellReply,
  tokenBucket,
} from '@sluice/core';
export { markSkipThrottle } from '@sluice/core/http';
export type { FetchVerdict, ForwardedForOptions, IpResolver } from '@sluice/fetch';
export { ip } from '@sluice/fetch';
export type { HonoRateLimitOptions, RateLimitEnv, RateLimitVariables } from './rate-limit.js';
export { rateLimit, throttle } from './rate-limit.js';
