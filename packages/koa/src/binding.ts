import { type HttpBinding, type ProxyTrust, whenFinished } from '@sluice/core/http';
import type { Context } from 'koa';

/** A layer of @koa/router (`ctx.matched`): its full pattern, methods and handlers. */
interface RouterLayer {
  path: string | RegExp;
  methods: string[];
  stack: unknown[];
}

/** A @koa/router `routes()` middleware: it carries its router. */
type RouterDispatch = {
  router?: { match(path: string, method: string): { pathAndMethod: RouterLayer[] } };
};

/** The layer @koa/router matched for this method (its methods include HEAD for a GET route). */
function routeLayer(ctx: Context): RouterLayer | undefined {
  const matched = (ctx as { matched?: RouterLayer[] }).matched;
  if (matched === undefined) return undefined;
  const method = ctx.req.method ?? 'GET';
  for (let i = matched.length - 1; i >= 0; i--) {
    const layer = matched[i]!;
    if (layer.methods.length > 0 && layer.methods.includes(method)) return layer;
  }
  return undefined;
}

/**
 * The handlers of the route that will serve `ctx`, for `@SkipThrottle()` on a limiter
 * mounted before the router: asked of each @koa/router mounted on the app, in order.
 */
function handlersOf(ctx: Context): unknown[] | undefined {
  const layer = routeLayer(ctx);
  if (layer !== undefined) return layer.stack;
  const middleware = ctx.app?.middleware as RouterDispatch[] | undefined;
  if (!Array.isArray(middleware)) return undefined;
  for (const fn of middleware) {
    const found = fn.router?.match(ctx.path, ctx.method).pathAndMethod;
    const route = found?.find((l) => l.methods.length > 0);
    if (route !== undefined) return route.stack;
  }
  return undefined;
}

/**
 * `ctx.ip`, without its cost where Koa's answer is the socket's address. Koa's getter
 * (`ips[0] || socket.remoteAddress || ''`) reads `X-Forwarded-For` and builds an array even
 * with `app.proxy` off (Koa's default), where `ips` is always empty. An ip computed or set
 * (`ctx.request.ip = …`) before is kept under a symbol on `ctx.request`; when any own symbol
 * is there, or `app.proxy` is on, Koa's getter answers.
 */
function clientIp(ctx: Context): string {
  if (ctx.app.proxy || Object.getOwnPropertySymbols(ctx.request).length > 0) return ctx.ip;
  return ctx.req.socket?.remoteAddress || '';
}

/**
 * Koa's proxy setting as the core's {@link ProxyTrust}: `app.proxy` off trusts nothing; on,
 * `ctx.ip` is the leftmost of the last `app.maxIpsCount` `X-Forwarded-For` entries, every
 * entry when that is 0 (Koa's default), which the client writes itself.
 */
function trustProxy(ctx: Context): ProxyTrust {
  if (!ctx.app.proxy) return 'none';
  return ctx.app.maxIpsCount > 0 ? 'some' : 'all';
}

/**
 * How the core's pipeline reads a Koa context and writes its answer: the route is the
 * pattern @koa/router matched (prefixes included), the user `ctx.state.user?.id`, the
 * decision `ctx.state.rateLimit`, the default store the Koa app's.
 */
export const koaBinding: HttpBinding<Context, Context> = {
  method: (ctx) => ctx.req.method ?? 'GET',
  route(ctx) {
    const path = routeLayer(ctx)?.path;
    return path === undefined ? undefined : String(path);
  },
  ip: clientIp,
  trustProxy,
  proxySetting: {
    name: "Koa's app.proxy (with app.maxIpsCount)",
    fix: 'app.proxy = true; app.maxIpsCount = 1',
  },
  headers: (ctx) => ctx.req.headers,
  user: (ctx) => ctx.state.user?.id,
  app: (ctx) => ctx.app,
  ledger: (ctx) => ctx,
  handlers: handlersOf,
  // perf: `ctx.set` allocates three arrays per call; the core's names and values are valid.
  setHeader: (ctx, name, value) => ctx.res.setHeader(name, value),
  expose(ctx, _res, decision) {
    ctx.state.rateLimit = decision;
  },
  onFinished: (ctx, _res, done) => whenFinished(ctx.res, done),
};
