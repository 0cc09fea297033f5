export type {
  Decision,
  HttpLimitOptions,
  HttpVerdict,
  LimitInput,
  RequestView,
  Store,
} from '@sluice/core';
export { Limit, MemoryStore, SluiceConfigError, ThrottleRegistry, throttles } from '@sluice/core';
export { SkipThrottle, Throttle } from './decorators.js';
export { rateLimit, throttle } from './rate-limit.js';
export type { ExpressRateLimitOptions, RateLimitHandler } from './types.js';
