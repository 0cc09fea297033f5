/**
 * `@sluice/core/http`: what adapter authors need: the HTTP pipeline every
 * adapter runs, the binding an adapter supplies, request views, key rules, header writing
 * and the decorator plumbing. Users write `@sluice/core` (or an adapter) instead.
 *
 * @packageDocumentation
 */

export { checkOptionNames, optionNames } from '../common/known-options.js';
export type { HttpBinding } from './binding.js';
export { moreRestrictive } from './charges.js';
export type { MethodDecorator } from './decorators.js';
export {
  anySkipMarks,
  isThrottleSkipped,
  markSkipThrottle,
  methodDecorator,
  SKIP_THROTTLE,
  SkipThrottle,
} from './decorators.js';
export { defaultStoreOf } from './default-store.js';
export type {
  HeaderSetter,
  HeaderStyle,
  HeaderStyleName,
  HeadersOption,
  PolicyDecision,
} from './headers.js';
export { ceilSeconds, rateLimitHeaders, retryAfterSeconds } from './headers.js';
export { HttpLimiter } from './http-limiter.js';
export { ipSubject, keySegment, MAX_SEGMENT_LENGTH, routeKey, userIdOf } from './keys.js';
export {
  createHttpMetrics,
  HttpMetrics,
  loadOpenTelemetryApi,
  type MeterLike,
  type MeterProviderLike,
  type MetricsOption,
  type RequestResult,
} from './metrics.js';
export type { HttpLimitOptions } from './options.js';
export type { FinishingResponse, OutcomeRule, Pending } from './outcome.js';
export { settle, whenFinished } from './outcome.js';
export { HTTP_OPTION_NAMES, misusedFactory, splitHttpOptions } from './parse-options.js';
export { HttpPipeline, type LimiterScope } from './pipeline.js';
export {
  PROBLEM_JSON_TYPE,
  QUOTA_EXCEEDED_TITLE,
  QUOTA_EXCEEDED_TYPE,
  type QuotaExceededProblem,
  quotaExceededBody,
} from './problem.js';
export type { ProxyTrust, ValidateOptions } from './proxy-warnings.js';
export { LazyRequestView, type RequestView } from './request-view.js';
export { ENFORCED, type LimitedInfo, type LimitMode, SHADOWED } from './shadow.js';
export { ShadowVerdict } from './shadow-verdict.js';
export type { HttpVerdict } from './verdict.js';
