import type { HttpBinding } from './binding.js';
import { HttpLimiter, type RequestSource } from './limiter/http-limiter.js';
import { ledgerOf, report } from './limiter/ledger.js';
import type { HttpLimitOptions } from './options/options.js';
import { anySkipMarks, isThrottleSkipped } from './request/decorators.js';
import { ProxyWarnings } from './request/proxy-warnings.js';
import type { HttpVerdict } from './verdict/verdict.js';

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
  readonly #source: RequestSource<Req, Res>;
  readonly #global: boolean;
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
    this.#source = { binding, global: this.#global };
    this.#proxy =
      binding.trustProxy === undefined
        ? undefined
        : new ProxyWarnings(this.limiter.config.validate, binding.proxySetting);
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
      proxy.check(b.trustProxy!(req), () => b.headers(req), b.app(req));
    }
    const ledger = b.ledger(req, res);
    const verdict = this.limiter.decide(req, res, ledger, this.#source);
    if (verdict === undefined) return undefined;
    if (verdict instanceof Promise) {
      return verdict.then((v) => (v === undefined ? v : this.#write(req, res, ledger, v)));
    }
    return this.#write(req, res, ledger, verdict);
  }

  /**
   * Writes `v` (headers through the binding, the decision exposed on the request) unless
   * an earlier limiter of the request reported a more restrictive one.
   */
  #write(req: Req, res: Res, ledger: object, v: HttpVerdict): HttpVerdict {
    const standing = report(ledgerOf(ledger), v);
    if (standing === undefined) return v;
    const b = this.#binding;
    v.writeHeaders(res, b.setterFor?.(res) ?? b.setHeader, b.lowercaseHeaders === true);
    b.expose(req, res, v.decision, ledger);
    return v;
  }
}
