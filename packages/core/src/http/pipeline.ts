import type { HttpBinding } from './binding.js';
import { ledgerOf, report } from './charges.js';
import { anySkipMarks, isThrottleSkipped } from './decorators.js';
import { HttpLimiter } from './http-limiter.js';
import { routeKey } from './keys.js';
import type { HttpLimitOptions } from './options.js';
import { settle } from './outcome.js';
import { ProxyWarnings } from './proxy-warnings.js';
import { LazyRequestView, type RequestView } from './request-view.js';
import type { HttpVerdict, Verdict } from './verdict.js';

/**
 * Which requests a limiter keys by route:
 * - `'global'` (Express / Koa `rateLimit`, Fastify's plugin registration): one bucket per
 *   subject across every route (`*`), and `@SkipThrottle()` handlers are exempt;
 * - `'route'` (`throttle`, `@Throttle`, Fastify `config.rateLimit` and `app.rateLimit()`):
 *   one bucket per subject and route (`GET /users/:id`, HEAD keyed as GET).
 */
export type LimiterScope = 'global' | 'route';

/**
 * The HTTP pipeline one middleware runs for each request, the same on every framework:
 * skip marks, route and user rules, the limiter's decision, stacking with the limiters the
 * request already passed (the most restrictive decision is the one reported), headers and
 * the decision written through the adapter's {@link HttpBinding}.
 *
 * @typeParam Req - the framework's request; `Res` - what headers are written to.
 * @throws {@link SluiceConfigError} at construction for any invalid option (named).
 *
 * @example
 * const pipeline = new HttpPipeline(options, koaBinding, 'route');
 * const verdict = pipeline.handle(ctx, ctx); // undefined or allowed: next(); else answer 429
 */
export class HttpPipeline<Req, Res> {
  /** The limiter that decides this pipeline's requests. */
  readonly limiter: HttpLimiter<Req>;
  readonly #binding: HttpBinding<Req, Res>;
  readonly #global: boolean;
  /** No `store` option: each application's default store. */
  readonly #byApp: boolean;
  readonly #headersOf: (req: Req) => RequestView['headers'];
  readonly #userOf: (req: Req) => unknown;
  /** The `validate` checks, while they run; `undefined` without them (or a binding that cannot tell). */
  readonly #proxy: ProxyWarnings | undefined;

  constructor(
    options: HttpLimitOptions<Req, Res>,
    binding: HttpBinding<Req, Res>,
    scope: LimiterScope,
  ) {
    this.limiter = new HttpLimiter<Req>(options as HttpLimitOptions<Req, never>);
    this.#binding = binding;
    this.#global = scope === 'global';
    this.#byApp = this.limiter.config.store === undefined;
    this.#headersOf = binding.headers;
    this.#userOf = binding.user;
    this.#proxy =
      binding.trustProxy === undefined
        ? undefined
        : new ProxyWarnings(this.limiter.config.validate);
  }

  /**
   * Runs the limiter for one request. Returns `undefined` when it does not limit the
   * request (skipped, exempt, no limit); otherwise the verdict that stands for the request,
   * whose headers are written and decision exposed: allowed, go on; denied, answer it with
   * its status and body and do not run the handler. Synchronous with a synchronous store
   * and synchronous callbacks; a promise (of `undefined` when skipped) otherwise.
   * Throws (or rejects) only what a user callback throws or a resolver's wrong value.
   */
  handle(req: Req, res: Res): HttpVerdict | Promise<HttpVerdict | undefined> | undefined {
    const b = this.#binding;
    if (this.#global && anySkipMarks() && b.handlers?.(req)?.some(isThrottleSkipped)) {
      return undefined;
    }
    const proxy = this.#proxy;
    if (proxy !== undefined && proxy.remaining > 0) {
      proxy.check(b.trustProxy!(req), () => this.#headersOf(req), b.app(req));
    }
    const user = this.limiter.userOf(req, this.#userOf);
    if (user instanceof Promise) return user.then((u) => this.#check(req, res, u));
    return this.#check(req, res, user);
  }

  /** {@link HttpPipeline.handle} once the user id is known. */
  #check(
    req: Req,
    res: Res,
    user: string | number | undefined,
  ): HttpVerdict | Promise<HttpVerdict | undefined> | undefined {
    const b = this.#binding;
    const method = b.method(req);
    const ledger = b.ledger(req, res);
    const view = new LazyRequestView(
      method,
      this.#global ? '*' : routeKey(method, b.route(req)),
      b.ip(req),
      user,
      req,
      this.#headersOf,
      ledger,
    );
    // The application matters only for its default store (no `store` option).
    const verdict = this.limiter.check(view, this.#byApp ? b.app(req) : undefined);
    if (verdict === undefined) return undefined;
    if (verdict instanceof Promise) {
      return verdict.then((v) => (v === undefined ? v : this.#write(req, res, ledger, v)));
    }
    return this.#write(req, res, ledger, verdict);
  }

  /**
   * Writes `v` unless an earlier limiter of the request reported a more restrictive one.
   * Its held charges (leases, outcome-aware and `costAfter` charges) are settled when the
   * binding reports the response finished or the connection closed.
   */
  #write(req: Req, res: Res, ledger: object, v: HttpVerdict): HttpVerdict {
    const held = (v as Verdict).held;
    if (held !== undefined && this.#binding.onFinished !== undefined) {
      const { outcome, clock, logger } = this.limiter.config;
      const metrics = this.limiter.metrics;
      if (metrics !== undefined) for (const h of held) if (h.lease) metrics.lease(h.name, +1);
      this.#binding.onFinished(req, res, (status) => {
        if (metrics !== undefined) for (const h of held) if (h.lease) metrics.lease(h.name, -1);
        // The promise is the binding's to keep alive (Workers' waitUntil); Node ones drop it.
        const [r, s] = this.#binding.callbackArgs?.(req, res) ?? [req, res];
        return settle(held, outcome as never, r, s, status, clock, logger);
      });
    }
    const standing = report(ledgerOf(ledger), v);
    if (standing === undefined) return v;
    const b = this.#binding;
    v.writeHeaders(res, b.setterFor?.(res) ?? b.setHeader, b.lowercaseHeaders === true);
    b.expose(req, res, v.decision, ledger);
    return v;
  }
}
