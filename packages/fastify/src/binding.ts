import { type HttpBinding, type ProxyTrust, proxyTrustOf, whenFinished } from '@sluice/core/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The root instance of a Fastify context: encapsulated contexts are made with
 * `Object.create(parent)`, so the root is the last Fastify instance on the prototype chain.
 */
export function rootOf(app: FastifyInstance): FastifyInstance {
  let root = app;
  for (
    let p = Object.getPrototypeOf(root) as FastifyInstance | null;
    p !== null && typeof p.addHook === 'function';
    p = Object.getPrototypeOf(p) as FastifyInstance | null
  ) {
    root = p;
  }
  return root;
}

/** The `trustProxy` option of each root instance, as the core's {@link ProxyTrust}. */
const trusts = new WeakMap<object, ProxyTrust | undefined>();

/**
 * Fastify's `trustProxy` option, read from the options Fastify keeps on the instance (it is
 * not in `initialConfig`); `undefined` when they cannot be found.
 */
function trustOf(root: FastifyInstance): ProxyTrust | undefined {
  if (trusts.has(root)) return trusts.get(root);
  let trust: ProxyTrust | undefined;
  const symbol = Object.getOwnPropertySymbols(root).find(
    (s) => s.description === 'fastify.options',
  );
  const options = symbol === undefined ? undefined : (root as never)[symbol];
  if (options !== undefined && options !== null && typeof options === 'object') {
    const value = (options as { trustProxy?: unknown }).trustProxy;
    trust = proxyTrustOf(value);
  }
  trusts.set(root, trust);
  return trust;
}

/** The last context a request was served by and its root (routes share few contexts). */
let lastServer: object | undefined;
let lastRoot: FastifyInstance | undefined;

/**
 * How the core's pipeline reads a Fastify request and writes its answer: the route is the
 * registered URL pattern (prefixes included), the user `request.user?.id`, the decision
 * `request.rateLimit`, the default store the root instance's.
 */
export const fastifyBinding: HttpBinding<FastifyRequest, FastifyReply> = {
  method: (request) => request.method,
  route: (request) => request.routeOptions.url,
  ip: (request) => request.ip,
  trustProxy: (request) => trustOf(fastifyBinding.app(request) as FastifyInstance),
  proxySetting: { name: "Fastify's trustProxy option", fix: 'Fastify({ trustProxy: 1 })' },
  headers: (request) => request.headers,
  user: (request) => (request as { user?: { id?: unknown } | null }).user?.id,
  app(request) {
    const server = request.server;
    if (server !== lastServer) {
      lastServer = server;
      lastRoot = rootOf(server);
    }
    return lastRoot;
  },
  ledger: (request) => request,
  setHeader: (reply, name, value) => {
    reply.header(name, value);
  },
  // perf: Fastify lowercases every name itself; lowercase names leave it nothing to convert.
  lowercaseHeaders: true,
  expose(request, _reply, decision) {
    request.rateLimit = decision;
  },
  onFinished: (_request, reply, done) => whenFinished(reply.raw, done),
};
