/**
 * `@sluice/core/http`: what adapter authors need: the HTTP pipeline every adapter runs
 * (`HttpPipeline`, fed by `splitHttpOptions`), the binding an adapter supplies, the
 * response-finished hook, the application's default store, and the decorator plumbing.
 * `HttpLimiter` and `RequestView` drive the pipeline without a framework (tests, custom
 * servers). Application authors write `@sluice/core` (or an adapter) instead.
 *
 * @packageDocumentation
 */
export type { HttpBinding } from './binding.js';
export type { MethodDecorator } from './decorators.js';
export { isThrottleSkipped, markSkipThrottle, methodDecorator } from './decorators.js';
export { defaultStoreOf } from './default-store.js';
export { HttpLimiter } from './http-limiter.js';
export type { HttpLimitOptions } from './options.js';
export type { FinishingResponse } from './outcome.js';
export { whenFinished } from './outcome.js';
export { misusedFactory, splitHttpOptions } from './parse-options.js';
export { HttpPipeline, type LimiterScope } from './pipeline.js';
export { proxyTrustOf, requestProxyTrust } from './proxy-trust.js';
export type { ProxyTrust } from './proxy-warnings.js';
export type { RequestView } from './request-view.js';
export type { HttpVerdict } from './verdict.js';
