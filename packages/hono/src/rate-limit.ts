import type { Decision, HttpLimitOptions, LimitInput } from '@sluice/core';
import { SluiceConfigError } from '@sluice/core';
import { type LimiterScope, misusedFactory } from '@sluice/core/http';
import { type FetchVerdict, fetchPipeline, type IpResolver } from '@sluice/fetch';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import { honoRuntime, runtimeIp } from './client-ip.js';

/** The variables sluice sets on Hono's context: `c.get('rateLimit')` is the decision. */
export type RateLimitVariables = {
  /** The decision reported for the request (the most restrictive of its limiters). */
  rateLimit: Decision;
};

/** The Hono `Env` of sluice's middleware: `new Hono<RateLimitEnv>()` types `c.get('rateLimit')`. */
export type RateLimitEnv = { Variables: RateLimitVariables };

/**
 * Options of {@link rateLimit} and {@link throttle}: the core's `HttpLimitOptions` with
 * Hono's `c` as the request (`user`, `requestWasSuccessful`, `Limit.costAfter` units get
 * `c`, and the `Response`), plus `ip` and `handler`. Hono's own defaults: `user` is
 * `c.get('user')?.id` (what your authentication middleware sets); the client IP is the
 * runtime's connection info (see `ip`).
 */
export interface HonoRateLimitOptions extends HttpLimitOptions<Context, Response> {
  /**
   * How the client IP is found.
   * @default the runtime's own connection info by Hono's runtime key (`ip.bun()`,
   *   `ip.deno()`, `ip.node()`, `ip.cloudflare()` on workerd); never a forwarded header:
   *   behind your own proxies pass `ip.forwardedFor({ trustedHops })`.
   */
  ip?: IpResolver;
  /**
   * Replaces the 429 answer of a denied request: return a `Response` (the rate-limit
   * headers and `Retry-After` are on `verdict.response`, `c.get('rateLimit')` is set).
   * @default `verdict.response`: the core's JSON (or problem+json) 429
   */
  handler?: (c: Context, verdict: FetchVerdict) => Response | Promise<Response>;
}

/** The scope of a sluice middleware, on the function (`Symbol.for`: one across builds). */
export const SCOPE = Symbol.for('sluice.scope');

/** The user id Hono apps usually have: `c.get('user')?.id`, set by an auth middleware. */
function honoUser(c: Context): unknown {
  // perf: `c.get`, not `c.var` (which copies every variable into a new object per call).
  const user = c.get('user') as unknown;
  return typeof user === 'object' && user !== null ? (user as { id?: unknown }).id : undefined;
}

/**
 * `c.executionCtx.waitUntil` on Workers, looked up only when there is work to keep alive
 * (rare): Hono's getter throws where there is no execution context, and an error per request
 * costs more than the whole decision.
 */
function waitUntilOf(c: Context): (promise: Promise<unknown>) => void {
  return (promise) => {
    try {
      c.executionCtx.waitUntil(promise);
    } catch {
      // Node, Bun, Deno: the process stays, the promise runs on.
    }
  };
}

function middleware(
  options: HonoRateLimitOptions,
  scope: LimiterScope,
): MiddlewareHandler<RateLimitEnv> {
  const where = scope === 'global' ? 'rateLimit()' : 'throttle()';
  const withIp =
    options?.ip === undefined && typeof options === 'object' && options !== null
      ? { ...options, ip: runtimeIp() }
      : options;
  const { pipeline, own } = fetchPipeline<Context>(withIp, scope, where, ['handler'], honoRuntime);
  const handler = own.handler as HonoRateLimitOptions['handler'];
  if (handler !== undefined && typeof handler !== 'function') {
    throw new SluiceConfigError('handler', handler, 'a function (c, verdict) => Response');
  }
  const limiter: MiddlewareHandler<RateLimitEnv> = async function sluiceRateLimit(c, next) {
    const decided = pipeline.decide(c.req.raw, {
      env: c.env,
      route: scope === 'route' ? routePath(c, -1) : undefined,
      user: honoUser(c),
      waitUntil: waitUntilOf(c),
      context: c,
      handlers: scope === 'global' ? () => matchedRoutes(c).map((r) => r.handler) : undefined,
    });
    const verdict = decided instanceof Promise ? await decided : decided;
    if (verdict.decision !== undefined) c.set('rateLimit', verdict.decision);
    if (!verdict.allowed) return handler === undefined ? verdict.response! : handler(c, verdict);
    try {
      await next();
    } catch (error) {
      verdict.abandon();
      throw error;
    }
    // The headers go on the finished response, in place (a copy only for immutable headers,
    // a `fetch()` response's). perf: set before next(), they would make Hono build the
    // response with a Headers object and then have to be checked for (a handler's own
    // `new Response(…)` does not get them).
    const res = c.res;
    const out = verdict.apply(res);
    if (out !== res) c.res = out;
  };
  // What assertRateLimited reads of `app.routes` (see assert-limited.ts).
  (limiter as unknown as Record<symbol, LimiterScope>)[SCOPE] = scope;
  return limiter;
}

/**
 * Hono middleware that limits every request it sees as a **global** limit
 * (`app.use(rateLimit(…))`, as on Express): one bucket per client across all routes (route
 * segment `*`); handlers marked `markSkipThrottle` are exempt. Each response gets the
 * rate-limit headers and `c.get('rateLimit')`; a denied request gets 429, `Retry-After` and
 * the JSON body (or `handler`'s answer) and the next handlers do not run. Stacked with other
 * sluice middleware, the most restrictive decision is reported and a key they share is
 * charged once. Works on every runtime Hono runs on; the client IP comes from the runtime's
 * connection info unless `ip` says otherwise.
 *
 * @param options - see {@link HonoRateLimitOptions}; default limit `'throttle:60,1'`.
 * @throws `SluiceConfigError` at creation for any invalid option, naming it.
 * @example
 * const app = new Hono<RateLimitEnv>();
 * app.use(rateLimit({ limit: '100/min' }));
 * app.get('/', (c) => c.json({ remaining: c.get('rateLimit').remaining }));
 */
export function rateLimit(options: HonoRateLimitOptions = {}): MiddlewareHandler<RateLimitEnv> {
  return middleware(options, 'global');
}

/**
 * Per-route limit: `app.post('/login', throttle('5/min'), handler)`. Its key carries the
 * matched pattern (`routePath(c, -1)`: `'POST /users/:id'`, sub-app prefixes included,
 * HEAD as GET), never the raw URL. `markSkipThrottle` does not exempt from it.
 *
 * @param limit - a throttle string (`'throttle:10,1'`, `'throttle:api'`, `'10/s'`), a
 *   `Limit`, or an array of them (all must pass; a denial charges none).
 * @param options - the other options (see {@link HonoRateLimitOptions}).
 * @throws `SluiceConfigError` at creation for an invalid limit or option.
 * @example app.get('/users/:id', throttle('throttle:10,1'), (c) => c.text('ok'));
 */
export function throttle(
  limit: LimitInput,
  options: HonoRateLimitOptions = {},
): MiddlewareHandler<RateLimitEnv> {
  const misused = misusedFactory(limit, 'throttle()');
  if (misused !== undefined) throw misused;
  return middleware({ ...options, limit }, 'route');
}
