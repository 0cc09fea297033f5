/**
 * @sluice/nestjs: sluice for NestJS on Express and Fastify, a binding to the core's HTTP
 * pipeline: `SluiceModule`, `SluiceGuard`, `@Throttle` / `@SkipThrottle`. Re-exports the
 * core's user-facing names, so `Limit`, `throttles` and `MemoryStore` need no second package.
 *
 * @packageDocumentation
 */
// The core's user-facing names, listed (Nest's own SkipThrottle replaces the core's): a name
// added to @sluice/core is re-exported here by a reviewed change.

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
  QUOTA_EXCEEDED_TITLE,
  QUOTA_EXCEEDED_TYPE,
  RateLimiter,
  SluiceConfigError,
  slidingLog,
  slidingWindow,
  ThrottleRegistry,
  throttles,
  toCellReply,
  tokenBucket,
} from '@sluice/core';
export type { SluiceConfig } from './config.js';
export { defaultRequestResponse } from './config.js';
export { SLUICE_CONFIG } from './constants.js';
export { type ClassOrMethodDecorator, SkipThrottle, Throttle } from './decorators.js';
export { ThrottleException, ThrottleExceptionFilter } from './exception.js';
export { SluiceGuard } from './guard.js';
export { SluiceModule, type SluiceModuleAsyncOptions } from './module.js';
export { SluiceRoutes } from './routes.js';
export type {
  NestRequest,
  NestResponse,
  RequestResponse,
  SluiceModuleOptions,
  ThrottleOptions,
} from './types.js';
