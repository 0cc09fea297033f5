/**
 * @sluice/fetch: sluice for `Request → Response` servers (Bun.serve, Deno.serve,
 * Cloudflare Workers, Next.js route handlers and `proxy.ts`, h3, Elysia): `limitFetch`,
 * `createFetchLimiter` and the client-IP resolvers of each runtime (`ip`). A binding to the
 * core's HTTP pipeline, so a request is limited with the same meaning as on Express.
 * Re-exports the core's user-facing names.
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
export type { FetchCheckInput, FetchVerdict } from './fetch-pipeline.js';
// For adapters built on this one (@sluice/hono): the pipeline with options parsed once.
export { FetchPipeline } from './fetch-pipeline.js';
export type { ForwardedForOptions, IpResolver } from './ip.js';
export { ip } from './ip.js';
export type { LimitFetchOptions } from './limit-fetch.js';
export { limitFetch } from './limit-fetch.js';
export type { FetchLimiter, FetchLimitOptions } from './limiter.js';
export { createFetchLimiter, fetchPipeline } from './limiter.js';
export type { WithRateLimitOptions } from './next.js';
export { withRateLimit } from './next.js';
