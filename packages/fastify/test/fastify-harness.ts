import type {
  AdapterHarness,
  AppSpec,
  RouteSpec,
  TestClient,
  TestResponse,
} from '@sluice/test-kit';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { rateLimit } from '../src/index.js';
import type { RouteRateLimit } from '../src/types.js';

/** `config.rateLimit` for a harness route: the limit, with its options when it has any. */
export function routeConfig(route: RouteSpec): { rateLimit?: RouteRateLimit } {
  if (route.limit === false) return { rateLimit: false };
  if (route.options !== undefined) return { rateLimit: { ...route.options, limit: route.limit } };
  return route.limit === undefined ? {} : { rateLimit: route.limit };
}

/** Sets `request.user = { id }` from `Authorization: Bearer <id>` (an app's auth hook). */
export function bearerAuth(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const m = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    if (m) (request as FastifyRequest & { user?: { id: string } }).user = { id: m[1]! };
    done();
  });
}

/** Answers a `light-my-request` response in the harness's shape. */
export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const res = await app.inject({ method, url, headers });
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined)
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const json = /json/.test(out['content-type'] ?? '');
  return { status: res.statusCode, headers: out, body: json ? res.json() : res.body };
}

/**
 * The Fastify harness of the shared HTTP behaviour table: `app.inject`, the plugin registered
 * with `spec.global` (or `{ global: false }` when there is none), each route's limit as
 * `config: { rateLimit }` (options given with a route override the registration's).
 */
export const fastifyHarness: AdapterHarness = {
  name: 'fastify',
  async start(spec: AppSpec): Promise<TestClient> {
    const app = Fastify({ trustProxy: spec.trustProxy ?? false });
    if (spec.bearerUser) bearerAuth(app);
    await app.register(rateLimit, spec.global ?? { global: false });
    const runs = new Map<string, number>();
    for (const route of spec.routes) {
      const id = `${route.method} ${route.path}`;
      app.route({
        method: route.method,
        url: route.path,
        config: routeConfig(route),
        handler: async (request) => {
          runs.set(id, (runs.get(id) ?? 0) + 1);
          return { ok: true, rateLimit: request.rateLimit };
        },
      });
    }
    await app.ready();
    return {
      request: (method, path, headers) => call(app, method, path, headers),
      handlerRuns: (method, path) => runs.get(`${method} ${path}`) ?? 0,
      close: () => app.close(),
    };
  },
};
