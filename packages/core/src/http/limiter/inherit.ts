import type { HttpLimitOptions } from '../options/options.js';
import { HttpLimiter } from './http-limiter.js';

/**
 * What a route limiter inherits from the application limiter its request passed (a global
 * `rateLimit()` in front of a `throttle()`, `@Throttle` or route config): the options that
 * say how the application answers and where it counts, so that one application answers one
 * way (one header style, one 429 body) whatever limit denied. An option the route gives
 * itself wins; `limit`, `key`, `skip` and the rest stay the route's own.
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

/** The application limiter a request passed, as recorded on its ledger. */
export interface AppLimiter {
  /** Its options as given (the inherited ones are read from here). */
  readonly options: HttpLimitOptions<never, never>;
  /** The application it counted the request under (its default store when it has no `store`). */
  readonly app: object | undefined;
}

const kApp = Symbol('sluice.appLimiter');
type WithApp = { [kApp]?: AppLimiter };

/**
 * Records `limiter` as the application limiter of the request whose ledger is `ledger`,
 * unless one is already recorded (the outermost application limiter is the one inherited).
 */
export function markAppLimiter(ledger: object, limiter: AppLimiter): void {
  const l = ledger as WithApp;
  if (l[kApp] === undefined) l[kApp] = limiter;
}

/** The application limiter the request of `ledger` passed, if any. */
export function appLimiterOf(ledger: object): AppLimiter | undefined {
  return (ledger as WithApp)[kApp];
}

/**
 * The limiters of one route limiter under each application limiter it was reached behind:
 * its own options with the application limiter's {@link INHERITED_OPTIONS} filled in, built
 * once per application limiter.
 */
export class Inheritance<Req> {
  readonly #own: HttpLimitOptions<Req, never>;
  readonly #plain: HttpLimiter<Req>;
  /** Nothing to inherit: the route gives every inherited option itself. */
  readonly #closed: boolean;
  readonly #byApp = new WeakMap<AppLimiter, HttpLimiter<Req>>();

  constructor(own: HttpLimitOptions<Req, never>, plain: HttpLimiter<Req>) {
    this.#own = own;
    this.#plain = plain;
    this.#closed = INHERITED_OPTIONS.every((k) => own[k] !== undefined);
  }

  /**
   * The limiter for a request that passed `app` (the route's own when it passed none, or
   * when `app` sets none of what the route leaves out).
   * @throws {@link SluiceConfigError} when the merged options are invalid together (the
   *   application's store cannot queue for the route's `mode: 'queue'`): answered as a
   *   callback's error (a 500), never served on a half-inherited limiter.
   */
  limiterFor(app: AppLimiter | undefined): HttpLimiter<Req> {
    if (app === undefined || this.#closed) return this.#plain;
    let limiter = this.#byApp.get(app);
    if (limiter === undefined) {
      const merged: Record<string, unknown> = { ...this.#own };
      let any = false;
      for (const k of INHERITED_OPTIONS) {
        if (merged[k] === undefined && app.options[k] !== undefined) {
          merged[k] = app.options[k];
          any = true;
        }
      }
      limiter = any ? new HttpLimiter<Req>(merged as HttpLimitOptions<Req, never>) : this.#plain;
      this.#byApp.set(app, limiter);
    }
    return limiter;
  }
}
