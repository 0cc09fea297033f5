import type { Decision } from '@sluice/core';

declare module 'koa' {
  interface DefaultState {
    /**
     * The rate-limit decision of this request, set by `rateLimit` / `throttle` /
     * `@Throttle` (the most restrictive one with several limits): `limit`, `remaining`,
     * `retryAfterMs`, `resetAfterMs` (ms), `allowed`, `cost`. Undefined when no limiter ran
     * or the request was skipped.
     */
    rateLimit?: Decision;
  }
}
