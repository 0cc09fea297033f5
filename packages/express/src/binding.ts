import { ServerResponse } from 'node:http';
import type { HttpBinding } from '@sluice/core/http';
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

/** The top application of each app a request was served by (walked once per app). */
const roots = new WeakMap<object, object>();

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
  headers: (req) => req.headers,
  user: (req) => (req as { user?: { id?: unknown } | null }).user?.id,
  app(req) {
    const app = appOf(req);
    if (app === undefined) return undefined;
    let root = roots.get(app);
    if (root === undefined) {
      root = rootOf(app) ?? app;
      roots.set(app, root);
    }
    return root;
  },
  // A dictionary-mode object Express creates per request (see request-decision.ts).
  ledger: (req, res) => (res.locals as object | undefined) ?? req,
  handlers: handlersOf,
  setHeader(res, name, value) {
    // perf: Node's own setHeader, called directly unless a library replaced `res.setHeader`
    // (each lookup on an Express 5 response is slow).
    if (res.setHeader === nodeSetHeader) nodeSetHeader.call(res, name, value);
    else res.setHeader(name, value);
  },
  expose: (req, _res, decision, ledger) => setRequestDecision(req, ledger, decision),
};
