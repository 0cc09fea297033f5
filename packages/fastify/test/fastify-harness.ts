import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { markSkipThrottle } from '@sluice/core/http';
import {
  type AdapterHarness,
  type AppSpec,
  type RouteSpec,
  routeId,
  type TestClient,
  type TestResponse,
  userIdFor,
} from '@sluice/test-kit';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { rateLimit } from '../src/index.js';
import type { RouteRateLimit } from '../src/types.js';

/** `config.rateLimit` for a harness route: the limit, with its options when it has any. */
export function routeConfig(route: RouteSpec, hook?: 'preHandler'): { rateLimit?: RouteRateLimit } {
  if (route.limit === false) return { rateLimit: false };
  if (route.options !== undefined || hook !== undefined) {
    return { rateLimit: { ...route.options, ...(hook && { hook }), limit: route.limit } };
  }
  return route.limit === undefined ? {} : { rateLimit: route.limit };
}

/**
 * Sets `request.user = { id }` from `Authorization: Bearer <token>` (an app's auth hook), in
 * `onRequest`, or in `preHandler` for `spec.lateAuth`.
 */
export function bearerAuth(app: FastifyInstance, spec: AppSpec = { routes: [] }): void {
  const auth = (request: FastifyRequest, _reply: unknown, done: () => void) => {
    const m = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    if (m)
      (request as FastifyRequest & { user?: { id: unknown } }).user = {
        id: userIdFor(spec, m[1]!),
      };
    done();
  };
  if (spec.lateAuth) app.addHook('preHandler', auth);
  else app.addHook('onRequest', auth);
}

/** Answers a `light-my-request` response in the harness's shape. */
export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'HEAD',
  url: string,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const res = await app.inject({ method, url, headers });
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined)
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const json = /json/.test(out['content-type'] ?? '') && res.body !== '';
  return { status: res.statusCode, headers: out, body: json ? res.json() : res.body };
}

/** Adds `route` to `app` (in a plugin with the mount as prefix when it has one). */
async function addRoute(
  app: FastifyInstance,
  runs: Map<string, number>,
  route: RouteSpec,
  hook?: 'preHandler',
): Promise<void> {
  const id = routeId(route);
  const gate = route.gate;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    runs.set(id, (runs.get(id) ?? 0) + 1);
    if (gate !== undefined) await gate.wait();
    const status = request.headers['x-status'];
    if (typeof status === 'string') reply.code(Number(status));
    return { ok: true, rateLimit: request.rateLimit };
  };
  const options = {
    method: route.method,
    url: route.path,
    config: routeConfig(route, hook),
    handler: bound(route, route.skipThrottle ? markSkipThrottle(handler) : handler),
  };
  if (route.mount === undefined) app.route(options);
  else await app.register(async (mounted) => mounted.route(options), { prefix: route.mount });
}

/** Answers a request over real HTTP in the harness's shape. */
function over(
  url: string,
  method: 'GET' | 'POST' | 'HEAD',
  path: string,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        const json = /json/.test(out['content-type'] ?? '') && text !== '';
        resolve({
          status: res.statusCode ?? 0,
          headers: out,
          body: json ? JSON.parse(text) : text,
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

function clientOf(app: FastifyInstance, runs: Map<string, number>, url?: string): TestClient {
  return {
    url,
    request: (method, path, headers) =>
      url === undefined ? call(app, method, path, headers) : over(url, method, path, headers),
    handlerRuns: (method, path) => runs.get(`${method} ${path}`) ?? 0,
    close: () => app.close(),
  };
}

/**
 * The Fastify harness of the shared HTTP behaviour table: `app.inject`, the plugin registered
 * with `spec.global` (or `{ global: false }` when there is none), each route's limit as
 * `config: { rateLimit }` (options given with a route override the registration's). With
 * `spec.lateAuth`, authentication is a `preHandler` hook and the limits run there too.
 */
export const fastifyHarness: AdapterHarness = {
  name: 'fastify',
  async start(spec: AppSpec): Promise<TestClient> {
    const trust = spec.trustProxy;
    const app = Fastify({ trustProxy: trust === 'all' ? true : trust ? 'loopback' : false });
    const hook = spec.lateAuth ? ('preHandler' as const) : undefined;
    if (spec.bearerUser) bearerAuth(app, spec);
    await app.register(rateLimit, { ...(spec.global ?? { global: false }), ...(hook && { hook }) });
    const runs = new Map<string, number>();
    for (const route of spec.routes) await addRoute(app, runs, route, hook);
    await app.ready();
    if (spec.listen !== true) return clientOf(app, runs);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return clientOf(app, runs, `http://127.0.0.1:${port}`);
  },
  async startOutOfReach(spec, route) {
    // The plugin registered in one encapsulated context, the route in a sibling one.
    const app = Fastify();
    const runs = new Map<string, number>();
    await app.register(async (limited) => {
      await limited.register(rateLimit, spec.global ?? {});
      limited.get('/limited', async () => ({ ok: true }));
    });
    await app.register(async (sibling) => addRoute(sibling, runs, route));
    try {
      await app.ready();
    } catch (error) {
      await app.close();
      throw error;
    }
    return clientOf(app, runs);
  },
};

/** `handler`, or a `.bind()` copy of it when the route asks for one. */
function bound<F extends (...args: never[]) => unknown>(route: RouteSpec, handler: F): F {
  return route.bound ? (handler.bind(undefined) as F) : handler;
}
