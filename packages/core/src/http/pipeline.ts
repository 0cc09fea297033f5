import type { HttpBinding } from './binding.js';
import { HttpLimiter, type RequestSource } from './limiter/http-limiter.js';
import { type AppLimiter, appLimiterOf, Inheritance, markAppLimiter } from './limiter/inherit.js';
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
 * the decision written through the adapter's {@link HttpBinding}. A `'route'` pipeline
 * reached behind a `'global'` one inherits what the global one's options say of the answer
 * and the counting (`headers`, `body`, `message`, `statusCode`, `store`, `prefix`,
 * `onStoreError`) where it leaves them out (see inherit.ts): adapters pass nothing for it.
 *
 * @typeParam Req - the framework's request; `Res` - what headers are written to.
 * @throws {@link SluiceConfigError} at construction for any invalid option (named).
 *
 * @example
 * const pipeline = new HttpPipeline(options, koaBinding, 'route');
 * const verdict = pipeline.handle(ctx, ctx); // undefined or allowed: next(); else answer 429
 */
export class HttpPipeline<Req, Res> {
  /** The limiter that decides this pipeline's requests (with its own options only). */
  readonly limiter: HttpLimiter<Req>;
  /** `'global'`: what a route pipeline behind it inherits (its options, its application). */
  readonly #options: HttpLimitOptions<never, never>;
  /** The limiter per application limiter in front of it (when it is not one itself). */
  readonly #inherit: Inheritance<Req>;
  readonly #apps = new WeakMap<object, AppLimiter>();
  #noApp: AppLimiter | undefined;
  #lastApp: AppLimiter | undefined;
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
    this.#options = options as HttpLimitOptions<never, never>;
    this.#inherit = new Inheritance(options as HttpLimitOptions<Req, never>, this.limiter);
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
    const ledger = b.ledger(req, res);
    let limiter = this.limiter;
    let app: AppLimiter | undefined;
    if (this.#global || b.appWide?.(req) === true) {
      // Recorded before any skip: a route limiter behind it inherits either way.
      markAppLimiter(ledger, this.#appLimiter(b.app(req)));
      if (this.#global && anySkipMarks() && b.handlers?.(req)?.some(isThrottleSkipped)) {
        return undefined;
      }
    } else {
      app = appLimiterOf(ledger);
      limiter = this.#inherit.limiterFor(app);
    }
    const proxy = this.#proxy;
    if (proxy !== undefined && proxy.remaining > 0) {
      proxy.check(b.trustProxy!(req), () => b.headers(req), b.app(req));
    }
    const verdict = limiter.decide(
      req,
      res,
      ledger,
      this.#source,
      limiter === this.limiter ? undefined : app?.app,
    );
    if (verdict === undefined) return undefined;
    if (verdict instanceof Promise) {
      return verdict.then((v) => (v === undefined ? v : this.#write(req, res, ledger, v)));
    }
    return this.#write(req, res, ledger, verdict);
  }

  /**
   * This global pipeline as the application limiter of `app`: one object per application
   * (what the route pipelines behind it key their inherited limiters by).
   */
  #appLimiter(app: object | undefined): AppLimiter {
    const last = this.#lastApp;
    if (last !== undefined && last.app === app) return last;
    let entry = app === undefined ? this.#noApp : this.#apps.get(app);
    if (entry === undefined) {
      entry = { options: this.#options, app };
      if (app === undefined) this.#noApp = entry;
      else this.#apps.set(app, entry);
    }
    this.#lastApp = entry;
    return entry;
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
