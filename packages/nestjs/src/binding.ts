import { type HttpBinding, requestProxyTrust, whenFinished } from '@sluice/core/http';
import type { NestRequest, NestResponse } from './types.js';

/** A Fastify reply (it has the Node response as `raw`); anything else is a Node/Express response. */
function isReply(res: NestResponse): boolean {
  return (
    res !== null && typeof res === 'object' && typeof res.header === 'function' && 'raw' in res
  );
}

const setOnReply = (reply: NestResponse, name: string, value: string): void => {
  reply.header(name, value);
};
const setOnResponse = (res: NestResponse, name: string, value: string): void => {
  res.setHeader(name, value);
};

/** The platform's setting, as the `validate` warnings name it (Express or Fastify). */
const NEST_PROXY_SETTING = {
  name: "the platform's trust proxy setting (Express trust proxy, Fastify trustProxy)",
  fix: "app.set('trust proxy', 1), or new FastifyAdapter({ trustProxy: 1 })",
};

/**
 * How the core's pipeline reads a Nest request, on either platform: the route is the
 * handler's pattern worked out when the application started (never the URL), the client IP
 * the platform's `req.ip` (its trust-proxy setting applies, and is checked by the `validate`
 * warnings as on Express and Fastify), the user Passport's
 * `req.user?.id`; headers go through the Fastify reply or the Node response; the default
 * store is the application's (`app`, one per Nest application).
 *
 * @param route - the handler's pattern (`/users/:id`), `undefined` for the global limit.
 * @param app - the object standing for the Nest application (its default store's owner).
 */
export function nestBinding(
  route: string | undefined,
  app: object,
): HttpBinding<NestRequest, NestResponse> {
  return {
    method: (req) => req.method,
    route: () => route,
    ip: (req) => req.ip ?? req.socket?.remoteAddress ?? req.raw?.socket?.remoteAddress ?? '',
    // The platform's own setting (Express `trust proxy`, Fastify `trustProxy`), for the
    // `validate` warnings, read as every adapter reads it.
    trustProxy: (req) => requestProxyTrust(req),
    proxySetting: NEST_PROXY_SETTING,
    headers: (req) => req.headers,
    user: (req) => req.user?.id,
    app: () => app,
    // Express: `res.locals`, a dictionary made per request (a new property on an Express 5
    // `req` costs a hidden class per request); Fastify: the request.
    ledger: (req, res) => (res?.locals as object | undefined) ?? req,
    setHeader: (res, name, value) => (isReply(res) ? setOnReply : setOnResponse)(res, name, value),
    setterFor: (res) => (isReply(res) ? setOnReply : setOnResponse),
    onFinished: (_req, res, done) => whenFinished(res.raw ?? res, done),
    expose: (req, _res, decision) => {
      req.rateLimit = decision;
    },
  };
}
