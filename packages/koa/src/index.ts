/**
 * @sluice/koa: Koa adapter of sluice (DESIGN §7). Translation only: the limits, keys,
 * headers and 429 answer come from `@sluice/core`'s `HttpLimiter`.
 *
 * @packageDocumentation
 */
import './types.js';

export type { Decision, HttpLimitOptions, HttpVerdict, LimitInput } from '@sluice/core';
export { Limit, SluiceConfigError, ThrottleRegistry, throttles } from '@sluice/core';
export { SkipThrottle, Throttle } from './decorators.js';
export type { KoaRateLimitOptions } from './rate-limit.js';
export { rateLimit, throttle } from './rate-limit.js';
