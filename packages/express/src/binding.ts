import { ServerResponse } from 'node:http';
import { type HttpBinding, type ProxyTrust, proxyTrustOf, whenFinished } from '@sluice/core/http';
import type { Request, Response } from 'express';
import { setRequestDecision } from './request-decision.js';
import { appOf, handlersOf, rootOf, routePattern } from './routes.js';

const nodeSetHeader = ServerResponse.prototype.setHeader;

/**
 * `req.ip`: Express runs proxy-addr over `X-Forwarded-For` with the app's `trust proxy`
 * function. With `trust proxy` off (Express's default) that is always the socket's address,
 * read here directly (every property read on an Express 5 request is a slow lookup).
 */
function clientIp(req: Request): string {
  const settings = (appOf(req) as { settings?: Record<string, unknown> } | undefined)?.settings;
  const ip = settings?.['trust proxy'] === false ? req.socket.remoteAddress : req.ip;
  return ip ?? req.socket.remoteAddress ?? '';
}

/** Express's `trust proxy` setting of the app serving `req`, as the core's {@link ProxyTrust}. */
function trustProxy(req: Request): ProxyTrust | undefined {
  const settings = (appOf(req) as { settings?: Record<string, unknown> } | undefined)?.settings;
  if (settings === undefined) return undefined;
  return proxyTrustOf(settings['trust proxy']);
}

/** The last app a request was served by and its top application (most processes have one). */
let lastApp: object | undefined;
let lastRoot: object | undefined;

/** Node's `setHeader`, called directly on a response that has not replaced it. */
function setHeaderNode(res: Response, name: string, value: string): void {
  nodeSetHeader.call(res, name, value);
}

/**
 * How the core's pipeline reads an Express request and writes its answer: the route is
 * Express's matched route with its mount paths, the user Passport's `req.user?.id`, the
 * ledger and `req.rateLimit` live in `res.locals` (see request-decision.ts), the default
 * store is the top application's.
 */
export const expressBinding: HttpBinding<Request, Response> = {
  method: (req) => req.method,
  route: routePattern,
  ip: clientIp,
  trustProxy,
  proxySetting: { name: "Express's trust proxy setting", fix: "app.set('trust proxy', 1)" },
  headers: (req) => req.headers,
  user: (req) => (req as { user?: { id?: unknown } | null }).user?.id,
  app(req) {
    const app = appOf(req);
    if (app !== lastApp) {
      lastApp = app;
      lastRoot = rootOf(app);
    }
    return lastRoot;
  },
  // A dictionary-mode object Express creates per request (see request-decision.ts).
  ledger: (req, res) => (res.locals as object | undefined) ?? req,
  handlers: handlersOf,
  setHeader: (res, name, value) => res.setHeader(name, value),
  // perf: one lookup of `res.setHeader` per response, not one per header (each lookup on an
  // Express 5 response is slow); Node's own is then called directly.
  setterFor: (res) => (res.setHeader === nodeSetHeader ? setHeaderNode : expressBinding.setHeader),
  expose: (req, _res, decision, ledger) => setRequestDecision(req, ledger, decision),
  onFinished: (_req, res, done) => whenFinished(res, done),
};
