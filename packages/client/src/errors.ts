/**
 * The errors of `@sluice/client`. A bad option throws the core's own `SluiceConfigError`,
 * from the small `@sluice/core/shared` entry (the core's root, whose HTTP pipeline needs
 * `node:http` and `ipaddr.js`, never reaches a browser bundle): one class, so `instanceof`
 * holds for an error either package throws.
 */
import { SluiceConfigError } from '@sluice/core/shared';

export { SluiceConfigError };

/**
 * Makes `instanceof Class` true for instances of any class carrying the brand
 * `Symbol.for('sluice.v0.<name>')` on its prototype: the ESM and CommonJS builds of this
 * package.
 */
function brandClass(cls: { prototype: object }, name: string): void {
  const brand = Symbol.for(`sluice.v0.${name}`);
  Object.defineProperty(cls.prototype, brand, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value: (value: unknown): boolean =>
      (typeof value === 'object' || typeof value === 'function') &&
      value !== null &&
      (value as Record<symbol, unknown>)[brand] === true,
  });
}

/**
 * The rejection of a {@link pacedFetch} request that would have to wait longer than its
 * `maxWait` before it may be sent (or re-sent after a 429 / 503 with `Retry-After`). The
 * request was not sent (or not sent again); nothing was consumed from the server's quota.
 * (It was named `RateLimitedError`: that name is now `@sluice/core`'s error for a limit
 * that refused on the server side, which this is not.)
 *
 * @example
 * ```ts
 * try {
 *   await api('https://api.example.com/items');
 * } catch (error) {
 *   if (error instanceof WaitTooLongError) {
 *     console.log(`try again in ${error.retryAfterMs} ms (policy ${error.policy})`);
 *   }
 * }
 * ```
 */
export class WaitTooLongError extends Error {
  /**
   * How long, in **ms** from the rejection, until the policy lets a request through;
   * `Infinity` when the server answered that this request can never be admitted (a 429
   * without `Retry-After` while its quota is not spent: see {@link WaitTooLongError.never}).
   */
  readonly retryAfterMs: number;
  /**
   * The name of the policy that holds the request back: a draft-8+ policy name (`"burst"`),
   * the `X-RateLimit-Resource` of a GitHub-style response, or `undefined` when the server
   * named none (legacy and draft-6/7 headers, a bare `Retry-After`).
   */
  readonly policy: string | undefined;

  /**
   * @param retryAfterMs - the wait, in ms, that exceeded `maxWait`.
   * @param policy - the policy's name, if the server named one.
   * @param maxWait - the `maxWait` it exceeded, in ms (for the message).
   */
  constructor(retryAfterMs: number, policy: string | undefined, maxWait: number) {
    const by = policy === undefined ? 'the server' : `policy ${safeName(policy)}`;
    super(
      `sluice: rate limited by ${by}: the next request is allowed in ${Math.ceil(retryAfterMs)} ms, more than maxWait (${maxWait} ms)`,
    );
    this.name = 'WaitTooLongError';
    this.retryAfterMs = retryAfterMs;
    this.policy = policy;
  }

  /**
   * The rejection of a request the server answered with 429 **without** `Retry-After` while
   * its rate-limit headers show quota left (no policy at 0 remaining): waiting cannot help,
   * the request itself is too large for the policy (a sluice server answers so when a
   * request's cost is above the limit's capacity; redis-cell's retry-after -1). Sent once,
   * never retried; `retryAfterMs` is `Infinity`.
   *
   * @param policy - the policy's name, if the server named one.
   * @example
   * ```ts
   * const error = WaitTooLongError.never('uploads');
   * error.retryAfterMs; // Infinity
   * ```
   */
  static never(policy: string | undefined): WaitTooLongError {
    const error = new WaitTooLongError(Number.POSITIVE_INFINITY, policy, 0);
    const by = policy === undefined ? 'the server' : `policy ${safeName(policy)}`;
    error.message =
      `sluice: rate limited by ${by}: the request can never be admitted (429 without ` +
      'Retry-After while quota is left: it asks for more than the policy allows), so it is not retried';
    return error;
  }
}
brandClass(WaitTooLongError, 'WaitTooLongError');

/**
 * The rejection of a {@link pacedFetch} request throttled by the client itself
 * (`selfThrottle: true`): the origin sends no rate-limit headers, and over the last
 * 2 minutes it accepted too few of the requests (Google SRE book, "Handling Overload",
 * client-side throttling). The request was not sent; it counts as a request (not an
 * accept) in the next ones' probability.
 *
 * @example
 * ```ts
 * const api = pacedFetch(fetch, { selfThrottle: true });
 * try {
 *   await api('https://legacy.example.com/report');
 * } catch (error) {
 *   if (error instanceof SelfThrottledError) console.log(`shed locally (p = ${error.probability})`);
 * }
 * ```
 */
export class SelfThrottledError extends Error {
  /** The rejection probability the request was drawn against, in [0, 1). */
  readonly probability: number;
  /** Requests attempted to the origin over the trailing 2 minutes, before this one. */
  readonly requests: number;
  /** Of them, the ones the server accepted (answers other than 429 / 503). */
  readonly accepts: number;

  /**
   * @param probability - max(0, (requests - 2·accepts) / (requests + 1)).
   * @param requests - requests over the window, before this one.
   * @param accepts - accepts over the window.
   */
  constructor(probability: number, requests: number, accepts: number) {
    super(
      `sluice: throttled locally: the server accepted ${accepts} of the last ${requests} requests in 2 minutes, so this one was not sent (rejected with probability ${probability.toFixed(3)})`,
    );
    this.name = 'SelfThrottledError';
    this.probability = probability;
    this.requests = requests;
    this.accepts = accepts;
  }
}
brandClass(SelfThrottledError, 'SelfThrottledError');

/** A policy name as messages show it: quoted when it looks like a name, else its length. */
function safeName(name: string): string {
  return /^[\w$.:@/-]{1,40}$/.test(name) ? `"${name}"` : `(a name of ${name.length} characters)`;
}
