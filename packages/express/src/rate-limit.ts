import { ServerResponse } from 'node:http';
import {
  HttpLimiter,
  type HttpVerdict,
  isThrottleSkipped,
  LazyRequestView,
  type LimitInput,
  SluiceConfigError,
} from '@sluice/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { setRequestDecision } from './request-decision.js';
import type { ExpressRateLimitOptions, RateLimitHandler } from './types.js';

/** Passport's convention: `req.user?.id` when it is a string or a number. */
function defaultUser(req: Request): string | number | undefined {
  const id = (req as { user?: { id?: unknown } | null }).user?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

const nodeSetHeader = ServerResponse.prototype.setHeader;

/** Sets a header with Node's `ServerResponse.prototype.setHeader`, found without a lookup on `res`. */
function setHeaderNode(res: Response, name: string, value: string): void {
  nodeSetHeader.call(res, name, value);
}

/** Sets a header with the response's own `setHeader` (one a library installed on it). */
function setHeaderOwn(res: Response, name: string, value: string): void {
  res.setHeader(name, value);
}

/**
 * The header setter for `res`: one lookup of `res.setHeader` per request instead of one per
 * header (each is a slow lookup on an Express 5 response, see request-decision.ts).
 */
function headerSetter(res: Response): (res: Response, name: string, value: string) => void {
  return res.setHeader === nodeSetHeader ? setHeaderNode : setHeaderOwn;
}

const expressHeaders = (req: Request) => req.headers;

/**
 * `req.ip`: Express runs proxy-addr over `X-Forwarded-For` with the app's `trust proxy`
 * function. With `trust proxy` off (Express's default) that is always the socket's address,
 * read here directly (every property read on an Express 5 request is a slow lookup: see
 * request-decision.ts).
 */
function clientIp(req: Request): string {
  // `req.app` lives on the request's prototype (`app.request`): read it there, on an object
  // whose hidden class does not change per request.
  const app = (Object.getPrototypeOf(req) as { app?: { settings?: Record<string, unknown> } })?.app;
  const settings = app?.settings;
  const ip = settings?.['trust proxy'] === false ? req.socket.remoteAddress : req.ip;
  return ip ?? req.socket.remoteAddress ?? '';
}

/** `true` when a handler of the matched route is marked `@SkipThrottle()`. */
function routeSkipsThrottle(route: { stack?: { handle?: unknown }[] }): boolean {
  const stack = route.stack;
  if (stack === undefined) return false;
  for (let i = 0; i < stack.length; i++) if (isThrottleSkipped(stack[i]!.handle)) return true;
  return false;
}

/**
 * Express middleware that rate-limits requests (DESIGN §4–§7). All decisions are the
 * core's `HttpLimiter`; this middleware only translates:
 *
 * - key route: `` `${req.method} ${req.baseUrl}${req.route.path}` `` (`GET /api/users/:id`)
 *   when Express has matched a route (the middleware is mounted on a route), else `'*'`
 *   (mounted with `app.use` before routing: every route shares the subject's bucket);
 * - subject: `user(req)` (default `req.user?.id`), else `req.ip`, so Express's
 *   `trust proxy` setting decides whether `X-Forwarded-For` counts;
 * - allowed: sets `req.rateLimit` and the rate-limit headers, then calls `next()`;
 * - denied: sets the headers and `Retry-After`, answers `statusCode` (429) with the JSON
 *   body with the core's `verdict.contentType` (JSON, or `text/plain` for a string from a
 *   `message` function) or calls `options.handler`, and does not call `next()`;
 * - errors thrown by `user`, `key`, `skip`, `onLimited`, `message`, a named limiter or
 *   `handler` go to `next(err)` (Express's error handler), never crash the server.
 *
 * Opting a route out of a global limiter: Express runs `app.use(rateLimit())` before it
 * knows the route, so no later marker can exempt a route from it. Register exempt routes
 * before `app.use(rateLimit())` (the mounting order), mount the limiter on a `Router` that
 * does not contain them, or use `skip`. A limiter mounted on a route (`app.get(path,
 * limiter, handler)`) does see the route, and skips it when one of its handlers is marked
 * `@SkipThrottle()` (the function itself, not a `.bind()` copy).
 *
 * A request already charged for the same key by another sluice middleware (global and
 * per-route with the same limit) is not charged twice. With a synchronous store
 * (`MemoryStore`) the request is decided without a promise.
 *
 * Source of semantics: express-rate-limit (middleware shape, `req.rateLimit`, `handler`,
 * `skip`), Laravel `ThrottleRequests` (throttle strings, named limiters).
 *
 * @param options - see `ExpressRateLimitOptions`; default limit `'throttle:60,1'`.
 * @returns an Express `RequestHandler`.
 * @throws `SluiceConfigError` at creation for any invalid option (e.g. a malformed throttle
 *   string or an undefined named limiter), naming the option.
 */
export function rateLimit(options: ExpressRateLimitOptions = {}): RequestHandler {
  const limiter = new HttpLimiter<Request>(options, defaultUser);
  const handler: RateLimitHandler | undefined = options.handler;
  if (handler !== undefined && typeof handler !== 'function') {
    throw new SluiceConfigError('handler', handler, 'a function (req, res, next, verdict) => void');
  }
  const respond = (
    req: Request,
    res: Response,
    locals: unknown,
    next: NextFunction,
    verdict: HttpVerdict,
  ) => {
    try {
      setRequestDecision(req, locals, verdict.decision);
      verdict.writeHeaders(res, headerSetter(res));
      if (!verdict.allowed) {
        if (handler !== undefined) {
          const answered = handler(req, res, next, verdict);
          // An async handler's rejection goes where a thrown error goes, not unhandled.
          if (answered instanceof Promise) answered.then(undefined, next);
          return;
        }
        const body = verdict.body;
        res.status(verdict.statusCode).type(verdict.contentType!);
        res.send(typeof body === 'string' ? body : JSON.stringify(body));
        return;
      }
    } catch (err) {
      return next(err);
    }
    next();
  };

  return function sluiceRateLimit(req: Request, res: Response, next: NextFunction): void {
    let verdict: HttpVerdict | Promise<HttpVerdict> | undefined;
    // A dictionary-mode object Express creates per request: the core's ledger and
    // `req.rateLimit` live there (see request-decision.ts).
    const locals = res.locals as object | undefined;
    try {
      const route = req.route as { path: unknown; stack?: { handle?: unknown }[] } | undefined;
      if (route === undefined || !routeSkipsThrottle(route)) {
        const method = req.method;
        verdict = limiter.check(
          new LazyRequestView(
            method,
            route === undefined ? '*' : `${method} ${req.baseUrl}${String(route.path)}`,
            clientIp(req),
            limiter.userOf(req),
            req,
            expressHeaders,
            locals,
          ),
        );
      }
    } catch (err) {
      next(err);
      return;
    }
    if (verdict === undefined) next();
    else if (verdict instanceof Promise)
      verdict.then((v) => respond(req, res, locals, next, v), next);
    else respond(req, res, locals, next, verdict);
  };
}

/**
 * Rate-limits one route: `throttle(limit, options)` is `rateLimit({ ...options, limit })`,
 * mounted on the route (`app.post('/login', throttle('throttle:login'), handler)`), so its
 * key has the route (`POST /login`). It adds to a global `rateLimit()`: the request must
 * pass both (Laravel stacks `throttle` middleware the same way).
 *
 * @param limit - a throttle string (`'throttle:60,1'`, `'throttle:api'`, `'10/s'`), a
 *   `Limit`, or an array of them. `false` is not accepted: see `rateLimit` for opting out.
 * @throws `SluiceConfigError` at creation for an invalid limit or option.
 */
export function throttle(
  limit: LimitInput,
  options: Omit<ExpressRateLimitOptions, 'limit'> = {},
): RequestHandler {
  if ((limit as unknown) === false) {
    throw new SluiceConfigError(
      'limit',
      limit,
      'a limit (throttle(false) cannot exempt a route from a global rateLimit() that ran ' +
        'before routing: register the route before app.use(rateLimit()), or use skip)',
    );
  }
  return rateLimit({ ...options, limit });
}
