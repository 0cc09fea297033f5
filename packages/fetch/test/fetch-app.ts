import {
  type AppSpec,
  answerRoute,
  bearerOf,
  type FetchApp,
  patternRegExp,
  type RouteSpec,
  routeId,
  tableIp,
} from '@sluice/test-kit';
import { createFetchLimiter, type FetchLimitOptions, type FetchVerdict } from '../src/index.js';

/**
 * The behaviour table's app on @sluice/fetch, runtime-neutral (Node, Bun, Deno run it):
 * the app's own router matches the route first (as a Next.js route file or a hand-written
 * `switch` does), then a global `createFetchLimiter` checks every request except the routes
 * outside it (`limit: false`, and `@SkipThrottle()` routes: the app does not call the global
 * check for them), then the route's own limiter with the route pattern (a per-route limit),
 * then the handler; `verdict.apply` puts the headers on its response.
 *
 * @param socket - the connection's address on this runtime (`ip.node()`, `ip.bun()`…).
 */
export function buildFetchApp(
  spec: AppSpec,
  socket: (req: Request, env?: unknown) => string | undefined,
): { app: FetchApp; runs: Map<string, number> } {
  const runs = new Map<string, number>();
  const ip = tableIp(spec, socket);
  const global =
    spec.global === undefined
      ? undefined
      : createFetchLimiter({ ...(spec.global as FetchLimitOptions), ip });
  const routes = spec.routes.map((route) => ({
    route,
    pattern: `${route.mount ?? ''}${route.path}`,
    regexp: patternRegExp(`${route.mount ?? ''}${route.path}`),
    limiter:
      route.limit === false || route.limit === undefined
        ? undefined
        : createFetchLimiter({
            ...(route.options as FetchLimitOptions),
            limit: route.limit,
            ip,
          }),
  }));
  const app: FetchApp = async (req, env) => {
    const path = new URL(req.url).pathname;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const found = routes.find((r) => r.route.method === method && r.regexp.test(path));
    const user = bearerOf(req, spec);
    const verdicts: FetchVerdict[] = [];
    const exempt = found !== undefined && (found.route.limit === false || found.route.skipThrottle);
    if (global !== undefined && !exempt) {
      const v = await global.check(req, { env, user });
      if (!v.allowed) return v.response!;
      verdicts.push(v);
    }
    if (found === undefined) return new Response('not found', { status: 404 });
    if (found.limiter !== undefined) {
      const v = await found.limiter.check(req, { env, user, route: found.pattern });
      if (!v.allowed) return v.response!;
      verdicts.push(v);
    }
    const decision = verdicts.at(-1)?.decision;
    let response = await answerRoute(req, runs, routeId(found.route), found.route.gate, decision);
    for (const v of verdicts.reverse()) response = v.apply(response);
    return response;
  };
  return { app, runs };
}

/** The out-of-reach app: the global limiter guards `/limited/*` only; the route is elsewhere. */
export function buildOutOfReach(
  spec: AppSpec,
  route: RouteSpec,
  socket: (req: Request, env?: unknown) => string | undefined,
): { app: FetchApp; runs: Map<string, number> } {
  const limited = buildFetchApp(
    { ...spec, routes: [{ method: 'GET', path: '/inside', mount: '/limited' }] },
    socket,
  );
  const open = buildFetchApp({ routes: [route] }, socket);
  const runs = open.runs;
  const app: FetchApp = (req, env) =>
    new URL(req.url).pathname.startsWith('/limited/') ? limited.app(req, env) : open.app(req, env);
  return { app, runs };
}
