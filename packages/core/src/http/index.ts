/**
 * `@sluice/core/http`: what adapter authors need: the HTTP pipeline every adapter runs
 * (`HttpPipeline`, fed by `splitHttpOptions`), the binding an adapter supplies, the
 * response-finished hook, the application's default store, and the decorator plumbing.
 * `HttpLimiter` and `RequestView` drive the pipeline without a framework (tests, custom
 * servers). The pieces of the 429 answer and of the OpenAPI responses an adapter writes
 * (`QUOTA_EXCEEDED_TYPE`, the OpenAPI object types), and the nested option types
 * `ValidateOptions`, `BodyStyle` and `HeaderStyleName`. Application authors write
 * `@sluice/core` (or an adapter) instead.
 *
 * @packageDocumentation
 */

export { isIpText } from '../common/ip-text.js';
export type { RequestView } from '../limits/request-view.js';
export type { HttpBinding } from './binding.js';
export { HttpLimiter } from './limiter/http-limiter.js';
export type { HttpLimitOptions } from './options/options.js';
export { misusedFactory, splitHttpOptions } from './options/parse-options.js';
export { HttpPipeline, type LimiterScope } from './pipeline.js';
export type { MethodDecorator } from './request/decorators.js';
export { isThrottleSkipped, markSkipThrottle, methodDecorator } from './request/decorators.js';
export { defaultStoreOf } from './request/default-store.js';
export type { FinishingResponse } from './request/finished.js';
export { whenFinished } from './request/finished.js';
export { proxyTrustOf, requestProxyTrust } from './request/proxy-trust.js';
export type { ProxySetting, ProxyTrust, ValidateOptions } from './request/proxy-warnings.js';
export type { BodyStyle, QuotaExceededProblem } from './verdict/denial.js';
export { QUOTA_EXCEEDED_TITLE, QUOTA_EXCEEDED_TYPE } from './verdict/denial.js';
export type { HeaderStyleName } from './verdict/headers.js';
export type {
  OpenApiHeaderObject,
  OpenApiResponseObject,
  OpenApiSchemaObject,
} from './verdict/openapi.js';
export { openApiOfLimiters } from './verdict/openapi.js';
export type { HttpVerdict } from './verdict/verdict.js';
