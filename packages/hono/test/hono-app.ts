import { markSkipThrottle } from '@sluice/core/http';
import {
  type AppSpec,
  answerRoute,
  bearerOf,
  type FetchApp,
  type RouteSpec,
  routeId,
  tableIp,
} from '@sluice/test-kit';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { type HonoRateLimitOptions, rateLimit, throttle } from '../src/index.js';

type Ip = (req: Request, env?: unknown) => string | undefined;

/** The `ip` option of the table's limiters: the middleware's default (the runtime's connection info) unless the table asks for a trusted proxy. */
function ipOption(spec: AppSpec, socket: Ip): { ip?: Ip } {
  return spec.trustProxy === undefined || spec.trustProxy === false
    ? {}
    : { ip: tableIp(spec, socket) };
}

/** `route` on `app` (or on a sub-app mounted at its `mount`), with its `throttle()`. */
function addRoute(app: Hono, runs: Map<string, number>, route: RouteSpec, ip: { ip?: Ip }) {
  const handler = (c: Context) =>
    answerRoute(c.req.raw, runs, routeId(route), route.gate, c.get('rateLimit'));
  const h = route.skipThrottle ? markSkipThrottle(handler) : handler;
  const target = route.mount === undefined ? app : new Hono();
  const chain: MiddlewareHandler[] = [];
  if (route.limit !== false && route.limit !== undefined) {
    chain.push(throttle(route.limit, { ...(route.options as HonoRateLimitOptions), ...ip }));
  }
  target.on(route.method, route.path, ...([...chain, h] as unknown as [MiddlewareHandler]));
  if (route.mount !== undefined) app.route(route.mount, target);
}

/**
 * The behaviour table's app on @sluice/hono, the recommended way: authentication first
 * (`c.set('user', { id })`), the routes with `limit: false` before the global limiter (their
 * handler answers, so the limiter never runs), `app.use(rateLimit(global))`, then the routes
 * with `throttle(limit, options)` inline.
 *
 * @param socket - the connection's address (the default `ip` is the runtime's; the table
 *   passes one only when it asks for a trusted proxy).
 */
export function buildHonoApp(
  spec: AppSpec,
  socket: Ip,
): { app: FetchApp; runs: Map<string, number> } {
  const runs = new Map<string, number>();
  const ip = ipOption(spec, socket);
  const app = new Hono();
  if (spec.bearerUser) {
    app.use(async (c, next) => {
      const id = bearerOf(c.req.raw, spec);
      if (id !== undefined) c.set('user' as never, { id } as never);
      await next();
    });
  }
  for (const route of spec.routes) if (route.limit === false) addRoute(app, runs, route, ip);
  if (spec.global) app.use(rateLimit({ ...(spec.global as HonoRateLimitOptions), ...ip }));
  for (const route of spec.routes) if (route.limit !== false) addRoute(app, runs, route, ip);
  return { app: (req, env) => app.fetch(req, env), runs };
}

/** The global limit on a sub-app of its own (`/limited`); the route, with its throttle, elsewhere. */
export function buildHonoOutOfReach(
  spec: AppSpec,
  route: RouteSpec,
  socket: Ip,
): { app: FetchApp; runs: Map<string, number> } {
  const runs = new Map<string, number>();
  const ip = ipOption(spec, socket);
  const app = new Hono();
  const limited = new Hono();
  limited.use(rateLimit({ ...(spec.global as HonoRateLimitOptions), ...ip }));
  limited.get('/inside', (c) =>
    answerRoute(c.req.raw, runs, 'GET /limited/inside', undefined, undefined),
  );
  app.route('/limited', limited);
  addRoute(app, runs, route, ip);
  return { app: (req, env) => app.fetch(req, env), runs };
}
