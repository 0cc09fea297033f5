import type { Request } from 'express';

/**
 * What the Express adapter reads from Express's routing (Express 5, `router` 2.x): the
 * application of a request, a matched route's whole pattern (mount paths included) and,
 * for `@SkipThrottle()` on a global limiter that runs before routing, the route that will
 * serve a request.
 */

interface ExpressApp {
  parent?: ExpressApp;
  router?: { stack?: Layer[] };
  path?: () => string;
}
interface Route {
  path: unknown;
  stack?: { handle?: unknown }[];
  _handlesMethod?: (method: string) => boolean;
}
interface Layer {
  route?: Route;
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
  match?: (path: string) => { path: string } | false;
}

/** The app serving `req` now (a sub-app inside its mount): `app.request`, `req`'s prototype, holds it. */
export function appOf(req: Request): ExpressApp | undefined {
  // `req.app` lives on the request's prototype (`app.request`): read it there, on an object
  // whose hidden class does not change per request (every read of an Express 5 `req` is a
  // slow lookup: see request-decision.ts).
  return (Object.getPrototypeOf(req) as { app?: ExpressApp } | null)?.app;
}

/** The top application of `app` (the one whose default store every sub-app shares). */
export function rootOf(app: ExpressApp | undefined): ExpressApp | undefined {
  let root = app;
  while (root?.parent !== undefined) root = root.parent;
  return root;
}

const kPattern = Symbol('sluice.pattern');
type PatternedRoute = Route & { [kPattern]?: string };

/**
 * The whole pattern of the route Express matched for `req` (`/users/:id/posts`, for a
 * router mounted at `/users/:id` with a route `/posts`), never the path the client sent:
 * a path parameter's value gives no fresh bucket. Worked out once per route
 * (kept on the route object) from the app's mount path and its routers' layers; where a
 * router's mount pattern cannot be found, the route's own pattern is used (routes then
 * share buckets rather than split them).
 */
export function routePattern(req: Request): string | undefined {
  const route = req.route as PatternedRoute | undefined;
  if (route === undefined) return undefined;
  let pattern = route[kPattern];
  if (pattern === undefined) {
    const app = appOf(req);
    const inApp = search(app?.router?.stack, '', route) ?? String(route.path);
    const mount = app?.parent !== undefined && typeof app.path === 'function' ? app.path() : '';
    pattern = mount + inApp;
    route[kPattern] = pattern;
  }
  return pattern;
}

/** The pattern of `route` within `stack` (its routers' mount patterns + its own), if found. */
function search(stack: Layer[] | undefined, prefix: string, route: Route): string | undefined {
  if (!Array.isArray(stack)) return undefined;
  for (const layer of stack) {
    if (layer.route === route) return prefix + String(route.path);
    const sub = layer.handle?.stack;
    if (Array.isArray(sub) && typeof layer.rawPath === 'string') {
      const mount = layer.rawPath === '/' ? '' : layer.rawPath;
      const found = search(sub, prefix + mount, route);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * The handlers of the route that will serve `req`, found as Express's router will find it
 * (its layers' own `match`, routers descended, the first route that handles the method),
 * from the top application with the whole path. Used only when some handler is marked
 * `@SkipThrottle()`. Routes of mounted sub-apps are not visible from their parent.
 */
export function handlersOf(req: Request): unknown[] | undefined {
  const url = req.originalUrl ?? req.url ?? '/';
  const q = url.indexOf('?');
  const route = find(
    rootOf(appOf(req))?.router?.stack,
    q === -1 ? url : url.slice(0, q),
    req.method,
  );
  return route?.stack?.map((layer) => layer.handle);
}

function find(stack: Layer[] | undefined, path: string, method: string): Route | undefined {
  if (!Array.isArray(stack)) return undefined;
  for (const layer of stack) {
    let match: { path: string } | false;
    try {
      match = layer.match?.(path) ?? false;
    } catch {
      match = false; // a malformed path: Express answers it with an error, no route
    }
    if (match === false) continue;
    if (layer.route !== undefined) {
      if (layer.route._handlesMethod?.(method)) return layer.route;
      continue;
    }
    const sub = layer.handle?.stack;
    if (Array.isArray(sub)) {
      const found = find(sub, path.slice(match.path.length) || '/', method);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
