import { type HttpLimitOptions, type LimitInput, SluiceConfigError } from '@sluice/core';
import {
  HttpPipeline,
  type HttpVerdict,
  type LimiterScope,
  misusedFactory,
  splitHttpOptions,
} from '@sluice/core/http';
import type { Context, Middleware, Next } from 'koa';
import { koaBinding } from './binding.js';

/**
 * Options of {@link rateLimit} and {@link throttle}: the core's `HttpLimitOptions` with
 * Koa's `ctx` as the request, plus Koa's way to replace the 429 answer. Koa's own
 * defaults: `user` is `ctx.state.user?.id`; the client IP is `ctx.ip` (so `app.proxy` /
 * `X-Forwarded-For` rules apply).
 */
export interface KoaRateLimitOptions extends HttpLimitOptions<Context, Context> {
  /**
   * Replaces the 429 answer of a denied request. Called after the rate-limit headers and
   * `Retry-After` are set and `ctx.state.rateLimit` is filled; it writes `ctx.status` /
   * `ctx.body` itself (or throws, e.g. `ctx.throw(429)`). May return a promise.
   * @default status `verdict.statusCode` and the core's JSON body
   */
  handler?: (ctx: Context, verdict: HttpVerdict) => unknown;
}

function middleware(options: KoaRateLimitOptions, scope: LimiterScope): Middleware {
  const where = scope === 'global' ? 'rateLimit()' : 'throttle()';
  const [{ handler }, core] = splitHttpOptions(options, ['handler'], where);
  if (handler !== undefined && typeof handler !== 'function') {
    throw new SluiceConfigError('handler', handler, 'a function (ctx, verdict) => void');
  }
  const pipeline = new HttpPipeline<Context, Context>(core, koaBinding, scope);
  const answer = (ctx: Context, next: Next, v: HttpVerdict | undefined): unknown => {
    if (v === undefined || v.allowed) return next();
    if (handler !== undefined) return handler(ctx, v);
    ctx.status = v.statusCode;
    ctx.type = v.contentType!;
    ctx.body = v.body;
    return undefined;
  };
  return function sluiceRateLimit(ctx: Context, next: Next): unknown {
    const verdict = pipeline.handle(ctx, ctx);
    if (verdict instanceof Promise) return verdict.then((v) => answer(ctx, next, v));
    return answer(ctx, next, verdict);
  };
}

/**
 * Koa middleware that limits every request it sees as a **global** limit (semantics of
 * koa-ratelimit and Laravel's ThrottleRequests): one bucket per subject
 * across all routes (route segment `*`), wherever it is mounted (`app.use`, `router.use`);
 * handlers marked `@SkipThrottle()` are exempt. Each response gets `X-RateLimit-Limit`,
 * `-Remaining`, `-Reset` (or the `headers` style chosen) and `ctx.state.rateLimit`; a denied
 * request gets 429, `Retry-After` and the JSON body (or `handler`'s answer), and `next()`
 * is not called. Stacked with other sluice middleware, the most restrictive decision is
 * reported and a key they share is charged once. Errors thrown by user callbacks reject the
 * middleware chain (Koa's error handling); a store failure follows `onStoreError`.
 *
 * @param options - see {@link KoaRateLimitOptions}; default limit `'throttle:60,1'`.
 * @returns a Koa middleware `(ctx, next)`.
 * @throws `SluiceConfigError` at creation for any invalid option, naming it.
 * @example app.use(rateLimit({ limit: 'throttle:60,1' }));
 */
export function rateLimit(options: KoaRateLimitOptions = {}): Middleware {
  return middleware(options, 'global');
}

/**
 * Per-route limit: `router.post('/login', throttle('throttle:login'), handler)` (Laravel's
 * `->middleware('throttle:login')`). Its key carries the pattern @koa/router matched
 * (`'POST /login'`, prefixes included, HEAD as GET). `@SkipThrottle()` does not exempt
 * from it. A request that reaches a global and a per-route limiter with the same key is
 * charged once.
 *
 * @param limit - a throttle string (`'throttle:10,1'`, `'throttle:api'`, `'10/s'`), a
 *   `Limit`, or an array of them (all must pass; a denial charges none).
 * @param options - the other options (see {@link KoaRateLimitOptions}).
 * @throws `SluiceConfigError` at creation for an invalid limit or option.
 * @example router.get('/users/:id', throttle('throttle:10,1'), show);
 */
export function throttle(limit: LimitInput, options: KoaRateLimitOptions = {}): Middleware {
  const misused = misusedFactory(limit, 'throttle()');
  if (misused !== undefined) throw misused;
  return middleware({ ...options, limit }, 'route');
}
