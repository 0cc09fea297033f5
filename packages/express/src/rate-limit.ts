import type { LimitInput } from '@sluice/core';
import { SluiceConfigError } from '@sluice/core';
import {
  HttpPipeline,
  type HttpVerdict,
  type LimiterScope,
  misusedFactory,
  splitHttpOptions,
} from '@sluice/core/http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { expressBinding } from './binding.js';
import type { ExpressRateLimitOptions, RateLimitHandler } from './types.js';

function middleware(options: ExpressRateLimitOptions, scope: LimiterScope): RequestHandler {
  const where = scope === 'global' ? 'rateLimit()' : 'throttle()';
  const [{ handler }, core] = splitHttpOptions(options, ['handler'], where);
  if (handler !== undefined && typeof handler !== 'function') {
    throw new SluiceConfigError('handler', handler, 'a function (req, res, next, verdict) => void');
  }
  const pipeline = new HttpPipeline<Request, Response>(core, expressBinding, scope);

  const answer = (req: Request, res: Response, next: NextFunction, v: HttpVerdict | undefined) => {
    if (v === undefined || v.allowed) return next();
    try {
      if (handler !== undefined) {
        const answered = (handler as RateLimitHandler)(req, res, next, v);
        // An async handler's rejection goes where a thrown error goes, not unhandled.
        if (answered instanceof Promise) answered.then(undefined, next);
        return;
      }
      const body = v.body;
      res.status(v.statusCode).type(v.contentType!);
      res.send(typeof body === 'string' ? body : JSON.stringify(body));
    } catch (err) {
      next(err);
    }
  };

  return function sluiceRateLimit(req: Request, res: Response, next: NextFunction): void {
    let verdict: HttpVerdict | Promise<HttpVerdict | undefined> | undefined;
    try {
      verdict = pipeline.handle(req, res);
    } catch (err) {
      next(err);
      return;
    }
    if (verdict instanceof Promise) verdict.then((v) => answer(req, res, next, v), next);
    else answer(req, res, next, verdict);
  };
}

/**
 * Express middleware that rate-limits every request it sees, as a **global** limit: one
 * bucket per subject across all routes (route segment `*`, as express-rate-limit), and
 * handlers marked `@SkipThrottle()` are exempt. Mount it with `app.use(rateLimit(o))`.
 *
 * - subject: `user(req)` (default `req.user?.id`) when it is a non-empty string or a finite
 *   number, else `req.ip` (Express's `trust proxy` decides whether `X-Forwarded-For` counts);
 * - allowed: sets `req.rateLimit` and the rate-limit headers, then calls `next()`;
 * - denied: sets the headers and `Retry-After`, answers `statusCode` (429) with the JSON
 *   body or calls `options.handler`, and does not call `next()`;
 * - stacked with other sluice middleware, the most restrictive decision is the one in the
 *   headers and `req.rateLimit`, and a key two of them share is charged once;
 * - errors thrown by user callbacks go to `next(err)`, never crash the server.
 *
 * Source of semantics: express-rate-limit (middleware shape, `req.rateLimit`, `handler`,
 * `skip`), Laravel `ThrottleRequests` (throttle strings, named limiters).
 *
 * @param options - see `ExpressRateLimitOptions`; default limit `'throttle:60,1'`.
 * @returns an Express `RequestHandler`.
 * @throws `SluiceConfigError` at creation for any invalid option, naming it.
 * @example app.use(rateLimit({ limit: 'throttle:60,1' }));
 */
export function rateLimit(options: ExpressRateLimitOptions = {}): RequestHandler {
  return middleware(options, 'global');
}

/**
 * Rate-limits one route: `app.post('/login', throttle('throttle:login'), handler)`. Its key
 * has the route's whole pattern (`POST /login`; a router mounted at `/users/:id` keys by
 * that pattern, never by `/users/42`; HEAD shares GET's bucket). It adds to a global
 * `rateLimit()`: the request must pass both (Laravel stacks `throttle` middleware the same
 * way). `@SkipThrottle()` does not exempt from it.
 *
 * @param limit - a throttle string (`'throttle:60,1'`, `'throttle:api'`, `'10/s'`), a
 *   `Limit`, or an array of them.
 * @param options - the other options (see `ExpressRateLimitOptions`).
 * @throws `SluiceConfigError` at creation for an invalid limit or option.
 * @example app.get('/users/:id', throttle('throttle:10,1'), show);
 */
export function throttle(
  limit: LimitInput,
  options: Omit<ExpressRateLimitOptions, 'limit'> = {},
): RequestHandler {
  const misused = misusedFactory(limit, 'throttle()');
  if (misused !== undefined) throw misused;
  if ((limit as unknown) === false) {
    throw new SluiceConfigError(
      'limit',
      limit,
      'a limit (throttle(false) cannot exempt a route from a global rateLimit() that ran ' +
        'before routing: mark the handler @SkipThrottle(), register the route before ' +
        'app.use(rateLimit()), or use skip)',
    );
  }
  return middleware({ ...options, limit }, 'route');
}
