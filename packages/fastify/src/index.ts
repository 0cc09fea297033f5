export { SkipThrottle, Throttle } from './decorators.js';
export { rateLimit } from './plugin.js';
export type {
  ErrorResponseBuilder,
  FastifyRateLimitOptions,
  RouteRateLimit,
  RouteRateLimitOptions,
} from './types.js';
