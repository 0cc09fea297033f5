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
 * What a route limit inherits from the application limit its request passed first (a
 * global `rateLimit()` in front of a `throttle()`, `@Throttle` or route config), where it
 * leaves them out: how the application answers and where it counts, so that one application
 * answers one way whichever of its limits denied. `limit`, `key`, `skip`... stay the route's.
 */
export const INHERITED_OPTIONS = [
  'headers',
  'body',
  'message',
  'statusCode',
  'store',
  'prefix',
  'onStoreError',
] as const;

/** On a request's ledger: the application limit it passed first. */
const kApp = Symbol('sluice.appLimit');
type AppLedger = { [kApp]?: HttpPipeline<unknown, unknown> };

/**
 * The HTTP pipeline one middleware runs for each request, the same on every framework:
 * skip marks, route and user rules, the limiter's decision, stacking with the limiters the
 * request already passed (the most restrictive decision is the one reported), headers and
 * the decision written through the adapter's {@link HttpBinding}. A pipeline behind an
 * application limit (a `'global'` one, or one the binding calls `appWide`) inherits that
 * one's {@link INHERITED_OPTIONS} it leaves out: adapters pass nothing for it.
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
  readonly #options: HttpLimitOptions<Req, Res>;
  /** Its limiter behind each application limit (its options with the inherited ones). */
  readonly #behind = new WeakMap<object, HttpLimiter<Req>>();
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
    this.#options = options;
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
    const l = ledger as AppLedger;
    let limiter = this.limiter;
    if (this.#global || b.appWide?.(req) === true) {
      // Recorded before any skip: the route limits behind it inherit either way.
      l[kApp] ??= this as HttpPipeline<unknown, unknown>;
      if (this.#global && anySkipMarks() && b.handlers?.(req)?.some(isThrottleSkipped)) {
        return undefined;
      }
    } else if (l[kApp] !== undefined) limiter = this.#inherited(l[kApp]);
    const proxy = this.#proxy;
    if (proxy !== undefined && proxy.remaining > 0) {
      proxy.check(b.trustProxy!(req), () => b.headers(req), b.app(req));
    }
    const verdict = limiter.decide(req, res, ledger, this.#source);
    if (verdict === undefined) return undefined;
    if (verdict instanceof Promise) {
      return verdict.then((v) => (v === undefined ? v : this.#write(req, res, ledger, v)));
    }
    return this.#write(req, res, ledger, verdict);
  }

  /**
   * This pipeline's limiter behind the application limit `app`: its own options with the
   * {@link INHERITED_OPTIONS} it leaves out taken from `app`'s, built once per `app`.
   * @throws {@link SluiceConfigError} when they are invalid together (`app`'s store cannot
   *   queue for this `mode: 'queue'`): answered as a callback's error (500).
   */
  #inherited(app: HttpPipeline<unknown, unknown>): HttpLimiter<Req> {
    let limiter = this.#behind.get(app);
    if (limiter === undefined) {
      const own = this.#options as Record<string, unknown>;
      const merged = { ...own };
      limiter = this.limiter;
      for (const k of INHERITED_OPTIONS) {
        if (own[k] === undefined && app.#options[k] !== undefined) {
          merged[k] = app.#options[k];
          limiter = undefined;
        }
      }
      limiter ??= new HttpLimiter<Req>(merged as HttpLimitOptions<Req, never>);
      this.#behind.set(app, limiter);
    }
    return limiter;
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
