import type { Decision } from '../algorithms/decision.js';
import type { RequestView } from '../limits/request-view.js';
import type { ProxySetting, ProxyTrust } from './request/proxy-warnings.js';

/**
 * What an adapter supplies so that the core's {@link HttpPipeline} can limit its
 * framework's requests: how to read method, route, client IP, headers and user from a
 * request, and how to write headers and the decision back. Everything else (keys, the user
 * id rule, HEAD as GET, stacking, the 429 answer) is the pipeline's, the same on every
 * framework. The functions are called without `this`.
 *
 * @typeParam Req - the framework's request (Express `req`, Fastify `request`, Koa `ctx`).
 * @typeParam Res - what headers are written to (Express `res`, Fastify `reply`, Koa `ctx`).
 *
 * @example
 * const binding: HttpBinding<Context, Context> = {
 *   method: (ctx) => ctx.method, route: (ctx) => ctx._matchedRoute, ip: (ctx) => ctx.ip,
 *   headers: (ctx) => ctx.req.headers, user: (ctx) => ctx.state.user?.id,
 *   app: (ctx) => ctx.app, ledger: (ctx) => ctx, setHeader: (ctx, n, v) => ctx.set(n, v),
 *   expose: (ctx, _, d) => { ctx.state.rateLimit = d; },
 * };
 */
export interface HttpBinding<Req, Res> {
  /** The HTTP method, upper case. */
  method(req: Req): string;
  /** The pattern of the matched route (`/users/:id`, mount paths included), if known. */
  route(req: Req): string | undefined;
  /** The client IP as the framework reports it (so its trust-proxy rules apply). */
  ip(req: Req): string;
  /**
   * What the framework trusts of the proxies in front of `req`'s application (Express
   * `trust proxy`, Fastify `trustProxy`, Koa `app.proxy`), for the `validate` warnings;
   * `undefined` when it cannot tell. Asked on a limiter's first requests only.
   */
  trustProxy?(req: Req): ProxyTrust | undefined;
  /**
   * How the `validate` warnings name that setting and its fix, in the framework's words
   * (`{ name: "Express's trust proxy setting", fix: "app.set('trust proxy', 1)" }`). Read
   * once, when the pipeline is built.
   * @default generic words ("the framework's proxy setting"); the shared config-rules rows
   *   fail an adapter that leaves them.
   */
  proxySetting?: ProxySetting;
  /** The request headers, lower-case names. Read only when a callback asks for them. */
  headers(req: Req): RequestView['headers'];
  /** The framework's conventional user id (Passport `req.user?.id`…); the `user` option replaces it. */
  user(req: Req): unknown;
  /**
   * Optional: `true` when a `'route'` pipeline checks `req` across every route (no route
   * given: a fetch limiter checked without `route`), so that it is the application's limiter
   * for `req`, whose answer options the route limiters behind it inherit, as a `'global'`
   * pipeline's. Default: only `'global'` pipelines are.
   */
  appWide?(req: Req): boolean;
  /** The application instance serving `req`: its default store is used when there is no `store`. */
  app(req: Req): object | undefined;
  /**
   * An object that lives exactly as long as the request, where the pipeline keeps what
   * the request has been through (see `RequestView.ledger`).
   */
  ledger(req: Req, res: Res): object;
  /**
   * The handlers that will serve `req`, for `@SkipThrottle()` on global limits; asked only
   * when some handler in the process is marked. Undefined: not known.
   */
  handlers?(req: Req): readonly unknown[] | undefined;
  /** Sets one response header (a name of the core's, a valid value). */
  setHeader(res: Res, name: string, value: string): void;
  /**
   * Optional: the header setter for this response, asked once per written verdict instead of
   * using `setHeader` (for a framework where choosing the setter costs a lookup on `res`).
   */
  setterFor?(res: Res): (res: Res, name: string, value: string) => void;
  /** Pass header names in lower case (for frameworks that lowercase every name anyway). */
  lowercaseHeaders?: boolean;
  /**
   * Calls `done` once when the response to `req` has finished, with its status, or with
   * `undefined` when the connection closed before it finished: how concurrency leases are
   * released and outcome-aware counting (`skipSuccessfulRequests`…) learns the outcome.
   * `whenFinished(nodeResponse, done)` is the Node-level part. Without it, leases expire
   * after `leaseMs` and nothing is given back for its outcome. `done` returns the settling's
   * promise (it never rejects): a runtime that stops work after the response (Workers,
   * Next.js) keeps it alive with `waitUntil` / `after()`.
   */
  onFinished?(req: Req, res: Res, done: (status: number | undefined) => Promise<void>): void;
  /**
   * Optional: what the callbacks that get "the framework's request and response"
   * (`requestWasSuccessful`, `Limit.costAfter` units) are given once the response is done,
   * when `req` / `res` are not that (a fetch adapter's per-check record: it gives the
   * `Request` and the `Response`). Default `[req, res]`.
   */
  callbackArgs?(req: Req, res: Res): [request: unknown, response: unknown];
  /**
   * Optional: what the callbacks given "the framework's request" (`RequestView.raw` in
   * `skip`, `key` and named-limiter resolvers; `Limit.adaptive`'s `priority`) see, when
   * `req` is not that (a fetch adapter's per-check record: it gives the `Request`, or Hono's
   * `c`). Default `req`.
   */
  request?(req: Req): unknown;
  /** Exposes the decision on the request (`req.rateLimit`…); `ledger` is what `ledger` gave. */
  expose(req: Req, res: Res, decision: Decision, ledger: object): void;
}
