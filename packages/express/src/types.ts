import type { Decision, HttpLimitOptions } from '@sluice/core';
import type { HttpVerdict } from '@sluice/core/http';
import type { NextFunction, Request, Response } from 'express';

declare global {
  namespace Express {
    interface Request {
      /**
       * The decision of the last sluice limiter that checked this request (the most
       * restrictive of its limits): `limit`, `remaining`, `retryAfterMs`, `resetAfterMs`
       * (ms)… Undefined when no limiter ran or the request was skipped.
       */
      rateLimit?: Decision;
    }
  }
}

/**
 * Replaces the denied response (express-rate-limit's `handler`). It receives the verdict
 * whose headers (`X-RateLimit-*`, `Retry-After`) are already set on `res`, and must end the
 * response or call `next` (e.g. `next(new HttpError(429))`). What it throws, and the
 * rejection of a promise it returns (an `async` handler), goes to `next(err)`.
 */
export type RateLimitHandler = (
  req: Request,
  res: Response,
  next: NextFunction,
  verdict: HttpVerdict,
) => unknown;

/**
 * Options of `rateLimit(options)` and `throttle(limit, options)`: the core's
 * `HttpLimitOptions` with `user` receiving the Express `req` (default
 * `req.user?.id`, as Passport sets it), plus `handler`.
 */
export interface ExpressRateLimitOptions extends HttpLimitOptions<Request, Response> {
  /** Replaces the default denied response (status + JSON body). Default: none. */
  handler?: RateLimitHandler;
}
