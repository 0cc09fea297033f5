import { SluiceConfigError } from '@sluice/core';
import { SCOPE } from './rate-limit.js';

/** What {@link assertRateLimited} reads of a Hono app: its `routes`, in registration order. */
export interface HonoRoutes {
  /** Hono's `app.routes`: each registered handler with its method and path, in order. */
  readonly routes: readonly { method: string; path: string; handler: unknown }[];
}

/** The scope a sluice middleware was made with, or `undefined` for any other handler. */
function scopeOf(handler: unknown): string | undefined {
  return typeof handler === 'function'
    ? (handler as unknown as Record<symbol, string | undefined>)[SCOPE]
    : undefined;
}

/**
 * Checks, once the app is built, that every route passes a sluice limit: Hono runs
 * middleware in registration order, so `app.use(rateLimit(…))` registered **after** a route
 * never runs for it, and that route answers unlimited, in silence. Call it at start-up or in
 * a test, after the last route (and `app.route(…)` of sub-apps, whose routes Hono copies in).
 *
 * A route is limited when a `rateLimit()` middleware (any path) was registered before it, or
 * it has a `throttle()` of its own. Middleware entries (`app.use`, method `ALL` on a `*`
 * path) are not routes.
 *
 * @param app - the Hono app (anything with Hono's `routes`).
 * @returns the number of routes checked.
 * @throws `SluiceConfigError` naming `rateLimit` and every unlimited route (`GET /health`),
 *   saying to register `app.use(rateLimit(…))` before them (an app with no sluice middleware
 *   at all lists every route); naming `app` when `app` has no `routes`.
 * @example
 * const app = new Hono();
 * app.use(rateLimit({ limit: '100/min' }));
 * app.get('/', (c) => c.text('ok'));
 * assertRateLimited(app); // throws if a route was declared before app.use(rateLimit())
 */
export function assertRateLimited(app: HonoRoutes): number {
  const routes = (app as Partial<HonoRoutes> | undefined)?.routes;
  if (!Array.isArray(routes)) {
    throw new SluiceConfigError('app', app, 'a Hono app (its routes)');
  }
  let global = false;
  const own = new Set<string>();
  const handlers: string[] = [];
  const unlimited: string[] = [];
  for (const r of routes) {
    const scope = scopeOf(r.handler);
    const name = `${r.method} ${r.path}`;
    if (scope === 'global') global = true;
    else if (scope === 'route') own.add(name);
    else if (!(r.method === 'ALL' && r.path.endsWith('*'))) {
      handlers.push(name);
      if (!global && !own.has(name) && !unlimited.includes(name)) unlimited.push(name);
    }
  }
  if (unlimited.length > 0) {
    const some =
      unlimited.length > 10 ? `${unlimited.slice(0, 10).join(', ')}…` : unlimited.join(', ');
    throw new SluiceConfigError('rateLimit', unlimited.length, '', {
      message:
        `sluice: ${unlimited.length} route(s) pass no rate limit: ${some}. Hono runs middleware in ` +
        'the order it was registered, so app.use(rateLimit(…)) after a route never runs for ' +
        'it: register it before the routes (or give the route a throttle())',
    });
  }
  return handlers.length;
}
