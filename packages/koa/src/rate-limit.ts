import {
  HttpLimiter,
  type HttpLimitOptions,
  type HttpVerdict,
  isThrottleSkipped,
  LazyRequestView,
  type LimitInput,
  SluiceConfigError,
} from '@sluice/core';
import type { Context, Middleware, Next } from 'koa';

/**
 * Options of {@link rateLimit} and {@link throttle}: the core's `HttpLimitOptions` (DESIGN
 * §7: `limit`, `algorithm`, `store`, `clock`, `prefix`, `throttles`, `user`, `key`,
 * `ipv6Subnet`, `headers`, `skip`, `onLimited`, `message`, `statusCode`, `onStoreError`)
 * with Koa's `ctx` as the request, plus Koa's way to replace the 429 answer.
 *
 * Defaults that are Koa's own: `user` is `ctx.state.user?.id`; the client IP is `ctx.ip`
 * (so `app.proxy` / `X-Forwarded-For` rules apply). A 429 body is sent with the core's
 * `verdict.contentType` (JSON, or `text/plain` for a string from a `message` function).
 */
export interface KoaRateLimitOptions extends HttpLimitOptions<Context> {
  /**
   * Replaces the 429 answer of a denied request. Called after the rate-limit headers and
   * `Retry-After` are set and `ctx.state.rateLimit` is filled; it writes `ctx.status` /
   * `ctx.body` itself (or throws, e.g. `ctx.throw(429)`). The next middleware and the route
   * handler are not run. May return a promise. Default: status `verdict.statusCode`, the
   * JSON body `{"statusCode":429,"error":"Too Many Requests","message":"…"}`.
   */
  handler?: (ctx: Context, verdict: HttpVerdict) => unknown;
}

/** The route pattern @koa/router matched for this method, from its matched layers. */
interface RouterLayer {
  path: string | RegExp;
  methods: string[];
  stack: unknown[];
}

function routeLayer(ctx: Context, method: string): RouterLayer | undefined {
  const matched = (ctx as { matched?: RouterLayer[] }).matched;
  if (matched === undefined) return undefined;
  for (let i = matched.length - 1; i >= 0; i--) {
    const layer = matched[i]!;
    if (layer.methods.length > 0 && layer.methods.includes(method)) return layer;
  }
  return undefined;
}

/** Route keys (`GET /users/:id`) by layer and method: built once, not per request. */
const routeKeys = new WeakMap<RouterLayer, Map<string, string>>();

/** `` `${method} ${layer.path}` ``, the same string object on every request of the route. */
function routeKey(layer: RouterLayer, method: string): string {
  let byMethod = routeKeys.get(layer);
  if (byMethod === undefined) {
    byMethod = new Map();
    routeKeys.set(layer, byMethod);
  }
  let key = byMethod.get(method);
  if (key === undefined) {
    key = `${method} ${String(layer.path)}`;
    byMethod.set(method, key);
  }
  return key;
}

/**
 * `ctx.set(name, value)` without its per-call arrays: the core's header names and values
 * are valid strings already, and headers are written before the response is sent.
 */
function setHeader(ctx: Context, name: string, value: string): void {
  ctx.res.setHeader(name, value);
}

const koaHeaders = (ctx: Context) => ctx.req.headers;

/**
 * `ctx.ip`, without its cost where Koa's answer is the socket's address. Koa's getter
 * (`ips[0] || socket.remoteAddress || ''`) reads `X-Forwarded-For` and builds an array even
 * with `app.proxy` off (Koa's default), where `ips` is always empty. An ip computed or set
 * (`ctx.request.ip = …`) before is kept under a symbol on `ctx.request`; when any own symbol
 * is there, or `app.proxy` is on, Koa's getter answers.
 */
function clientIp(ctx: Context): string {
  const request = ctx.request;
  if (ctx.app.proxy || Object.getOwnPropertySymbols(request).length > 0) return ctx.ip;
  return ctx.req.socket?.remoteAddress || '';
}

const defaultUser = (ctx: Context): string | number | undefined => ctx.state.user?.id;

function middleware(options: KoaRateLimitOptions, honourSkip: boolean): Middleware {
  const limiter = new HttpLimiter<Context>(options, defaultUser);
  const handler = options.handler;
  if (handler !== undefined && typeof handler !== 'function') {
    throw new SluiceConfigError('handler', handler, 'a function (ctx, verdict) => void');
  }
  const answer = (ctx: Context, next: Next, verdict: HttpVerdict): unknown => {
    ctx.state.rateLimit = verdict.decision;
    verdict.writeHeaders(ctx, setHeader);
    if (verdict.allowed) return next();
    if (handler !== undefined) return handler(ctx, verdict);
    ctx.status = verdict.statusCode;
    ctx.type = verdict.contentType!;
    ctx.body = verdict.body;
    return undefined;
  };
  return function sluiceRateLimit(ctx: Context, next: Next): unknown {
    const method = ctx.req.method ?? 'GET';
    const layer = routeLayer(ctx, method);
    if (honourSkip && layer?.stack.some(isThrottleSkipped)) return next();
    const verdict = limiter.check(
      new LazyRequestView(
        method,
        layer === undefined ? '*' : routeKey(layer, method),
        clientIp(ctx),
        limiter.userOf(ctx),
        ctx,
        koaHeaders,
      ),
    );
    if (verdict === undefined) return next();
    if (verdict instanceof Promise) return verdict.then((v) => answer(ctx, next, v));
    return answer(ctx, next, verdict);
  };
}

/**
 * Koa middleware that limits every request it sees (semantics of koa-ratelimit and
 * Laravel's ThrottleRequests; DESIGN §5–§7). Each request gets `X-RateLimit-Limit`,
 * `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix epoch seconds) or the `headers`
 * style chosen, and `ctx.state.rateLimit` (the most restrictive `Decision`). A denied request
 * gets status 429 (`statusCode`), `Retry-After` in whole seconds and the JSON body
 * `{"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry in N seconds"}`
 * (or the `handler` option's answer); `next()` is not called, so the route does not run.
 *
 * Route in the key: where it is mounted decides what it sees.
 * - `app.use(rateLimit(o))` before `app.use(router.routes())`: no route is matched yet, the
 *   route is `'*'` and all routes share each client's bucket.
 * - `router.use(rateLimit(o))` or a route's own middleware (see {@link throttle}): the route
 *   @koa/router matched, `'GET /users/:id'` (its `_matchedRoute` pattern, never the raw URL).
 *
 * Opting a route out: a global middleware before the router cannot see the route, so mount
 * the routes that must not be limited on a router placed *before* the limiter
 * (`app.use(open.routes()); app.use(rateLimit(o)); app.use(api.routes())`), or mount the
 * limiter on a router or prefix (`api.use(rateLimit(o))`). Where the route is known
 * (`router.use(rateLimit(o))`), a handler marked with `@SkipThrottle()` (or
 * `markSkipThrottle(fn)`) is not limited; a bound copy (`fn.bind(x)`) loses the mark.
 *
 * The verdict is computed synchronously with a synchronous store (`MemoryStore`): no
 * promise is created besides `next()`'s own. Errors thrown by user callbacks (`user`, `key`,
 * `skip`, `onLimited`, `message`, `handler`, a named limiter) reject the middleware chain
 * and reach Koa's error handling (`ctx.onerror`, `app.on('error')`); a store failure follows
 * `onStoreError` and never throws.
 *
 * @param options - see {@link KoaRateLimitOptions}; default limit `'throttle:60,1'`.
 * @returns a Koa middleware `(ctx, next)`.
 * @throws `SluiceConfigError` at creation for any invalid option (the option is named),
 *   including a `'throttle:<name>'` naming a limiter that is not defined.
 */
export function rateLimit(options: KoaRateLimitOptions = {}): Middleware {
  return middleware(options, true);
}

/**
 * Per-route limit, `rateLimit({ ...options, limit })` for one route:
 * `router.post('/login', throttle('throttle:login'), handler)` (Laravel's
 * `->middleware('throttle:login')`). Mounted in a @koa/router route, its key carries the
 * matched route (`'POST /login'`). Unlike {@link rateLimit}, it ignores `@SkipThrottle()`
 * (that mark only exempts from the global limiter). A request that reaches a global and a
 * per-route limiter with the same key is charged once.
 *
 * @param limit - a throttle string (`'throttle:10,1'`, `'throttle:api'`, `'10/s'`), a
 *   `Limit`, or an array of them (all must pass; a denial charges none).
 * @param options - the other options (see {@link KoaRateLimitOptions}).
 * @throws `SluiceConfigError` at creation for an invalid limit or option.
 */
export function throttle(limit: LimitInput, options: KoaRateLimitOptions = {}): Middleware {
  return middleware({ ...options, limit }, false);
}
