import type { ProxyTrust } from './proxy-warnings.js';

/**
 * A framework's proxy setting as a {@link ProxyTrust}: Express `trust proxy` and Fastify
 * `trustProxy` take the same values (proxy-addr's): `undefined`, `false` or `0` trust no
 * proxy (`'none'`); `true` trusts every hop (`'all'`); a hop count, addresses, CIDRs,
 * `'loopback'` or a function trust some (`'some'`).
 *
 * @example
 * proxyTrustOf(app.get('trust proxy')); // 'none' by default on Express
 * proxyTrustOf(true);                    // 'all'
 * proxyTrustOf('loopback');              // 'some'
 */
export function proxyTrustOf(setting: unknown): ProxyTrust {
  if (setting === undefined || setting === false || setting === 0) return 'none';
  return setting === true ? 'all' : 'some';
}

/** The options Fastify keeps on each instance (`Symbol('fastify.options')`), by instance. */
const fastifyOptions = new WeakMap<object, { trustProxy?: unknown } | undefined>();

/**
 * What the framework serving `req` trusts of the proxies in front of it, for a binding
 * that may run on Express or Fastify (NestJS): an Express request's `req.app.settings['trust
 * proxy']`, or a Fastify request's `request.server` options' `trustProxy` (kept by Fastify
 * under `Symbol('fastify.options')`, not in `initialConfig`); `undefined` when neither can
 * be read.
 *
 * @example
 * const binding = { trustProxy: (req) => requestProxyTrust(req), ... };
 */
export function requestProxyTrust(req: unknown): ProxyTrust | undefined {
  if (req === null || typeof req !== 'object') return undefined;
  const r = req as { app?: { settings?: Record<string, unknown> }; server?: object };
  const settings = r.app?.settings;
  if (settings !== undefined && settings !== null) return proxyTrustOf(settings['trust proxy']);
  const server = r.server;
  if (server === undefined || server === null || typeof server !== 'object') return undefined;
  let options = fastifyOptions.get(server);
  if (!fastifyOptions.has(server)) {
    const symbol = Object.getOwnPropertySymbols(server).find(
      (s) => s.description === 'fastify.options',
    );
    const value = symbol === undefined ? undefined : (server as Record<symbol, unknown>)[symbol];
    options = value !== null && typeof value === 'object' ? value : undefined;
    fastifyOptions.set(server, options);
  }
  return options === undefined ? undefined : proxyTrustOf(options.trustProxy);
}
