/**
 * The errors of `@sluice/client`. The client does not import `@sluice/core` (whose HTTP
 * pipeline needs `node:http` and `node:crypto`, and which would bring `ms` and `ipaddr.js`
 * into a browser bundle): its {@link SluiceConfigError} has the same shape as the core's and
 * the same brand, so `instanceof` holds across the two in both directions.
 */

/**
 * Makes `instanceof Class` true for instances of any class carrying the brand
 * `Symbol.for('sluice.v0.<name>')` on its prototype: the ESM and CommonJS builds of this
 * package, and `@sluice/core`'s class of the same name.
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
 * Thrown by {@link pacedFetch} when it is created with an invalid option or an unknown
 * option name (all unknown names in one message). The message names the option and
 * describes the value by its kind, never by serialising it, for example
 * `sluice: invalid option "maxWait": expected a number of ms >= 0 (or Infinity), got a number (-1)`.
 *
 * The same shape as `@sluice/core`'s `SluiceConfigError` (`option`, a non-enumerable
 * `value`), and `instanceof` either class holds for both.
 *
 * @example
 * ```ts
 * try {
 *   pacedFetch(fetch, { maxWait: -1 });
 * } catch (error) {
 *   if (error instanceof SluiceConfigError) console.error(error.option); // 'maxWait'
 * }
 * ```
 */
export class SluiceConfigError extends Error {
  /** The option that was invalid or unknown, e.g. `"maxWait"`. */
  readonly option: string;
  /** The value that was given (`undefined` for an unknown name). Not enumerable. */
  declare readonly value: unknown;

  /**
   * @param option - the option's name.
   * @param value - the value given; described by its kind, never serialised.
   * @param expected - what the option takes, e.g. `'an integer >= 0'`.
   * @param message - replaces the whole message.
   */
  constructor(option: string, value: unknown, expected: string, message?: string) {
    super(
      message ?? `sluice: invalid option "${option}": expected ${expected}, got ${describe(value)}`,
    );
    this.name = 'SluiceConfigError';
    this.option = option;
    Object.defineProperty(this, 'value', { value, enumerable: false });
  }
}
brandClass(SluiceConfigError, 'SluiceConfigError');

/**
 * The rejection of a {@link pacedFetch} request that would have to wait longer than its
 * `maxWait` before it may be sent (or re-sent after a 429 / 503 with `Retry-After`). The
 * request was not sent (or not sent again); nothing was consumed from the server's quota.
 *
 * @example
 * ```ts
 * try {
 *   await api('https://api.example.com/items');
 * } catch (error) {
 *   if (error instanceof RateLimitedError) {
 *     console.log(`try again in ${error.retryAfterMs} ms (policy ${error.policy})`);
 *   }
 * }
 * ```
 */
export class RateLimitedError extends Error {
  /**
   * How long, in **ms** from the rejection, until the policy lets a request through;
   * `Infinity` when the server answered that this request can never be admitted (a 429
   * without `Retry-After` while its quota is not spent: see {@link RateLimitedError.never}).
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
    this.name = 'RateLimitedError';
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
   * const error = RateLimitedError.never('uploads');
   * error.retryAfterMs; // Infinity
   * ```
   */
  static never(policy: string | undefined): RateLimitedError {
    const error = new RateLimitedError(Number.POSITIVE_INFINITY, policy, 0);
    const by = policy === undefined ? 'the server' : `policy ${safeName(policy)}`;
    error.message =
      `sluice: rate limited by ${by}: the request can never be admitted (429 without ` +
      'Retry-After while quota is left: it asks for more than the policy allows), so it is not retried';
    return error;
  }
}
brandClass(RateLimitedError, 'RateLimitedError');

/** A policy name as messages show it: quoted when it looks like a name, else its length. */
function safeName(name: string): string {
  return /^[\w$.:@/-]{1,40}$/.test(name) ? `"${name}"` : `(a name of ${name.length} characters)`;
}

/** A value described by its kind for an error message: `a number (-1)`, `a string of 3 characters`… */
export function describe(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return `a number (${value})`;
    case 'string':
      return `a string of ${value.length} characters`;
    case 'function':
      return 'a function';
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? `an array of ${value.length} items` : 'an object';
    default:
      return String(typeof value === 'symbol' ? 'a symbol' : value);
  }
}
