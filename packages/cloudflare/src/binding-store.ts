import { type Decision, SluiceConfigError, type Store } from '@sluice/core';
import { type Algorithm, checkOptionNames, GcraAlgorithm, optionNames } from '@sluice/core/store';
import { isKvNamespaceLike, KV_REFUSAL, type RateLimitBindingLike } from './types.js';

/**
 * Options of {@link WorkersRateLimitBindingStore}: the binding's own configuration, acknowledged.
 * @example
 * ```ts
 * const options: WorkersRateLimitBindingStoreOptions = { approximate: true, limit: 100, period: 60 };
 * ```
 */
export interface WorkersRateLimitBindingStoreOptions {
  /**
   * Must be `true`: you accept that the binding is approximate. Cloudflare counts per
   * location (each data center keeps its own count, so a client spread over locations
   * gets more) and eventually consistently (requests in flight at once may all pass), and
   * it answers only pass or fail: no remaining count, no reset time.
   */
  approximate: true;
  /** The binding's `simple.limit` in wrangler.toml: requests per period, an integer >= 1. */
  limit: number;
  /** The binding's `simple.period` in wrangler.toml, in **seconds**: 10 or 60 (all Cloudflare allows). */
  period: 10 | 60;
}

const OPTION_NAMES = optionNames<WorkersRateLimitBindingStoreOptions>({
  approximate: true,
  limit: true,
  period: true,
});

/**
 * A {@link Store} over a Workers rate-limiting binding (`[[ratelimits]]` in wrangler.toml,
 * `env.MY_RATE_LIMITER.limit({ key })`): **approximate**, by your explicit choice
 * (`approximate: true`). Cloudflare keeps the count per location and eventually
 * consistent, so it may admit more than the limit (concurrent requests, several
 * locations); use {@link DurableObjectStore} when the limit must hold exactly.
 *
 * The binding's limit and period are set in wrangler.toml, not by sluice: give the same
 * `limit` and `period` here, and use a limit that says the same (`'100/min'` for
 * `limit: 100, period: 60`; a GCRA, fixed or sliding window of `limit` per `period`); a
 * decision under any other limit is a `TypeError`. Each decision of cost 1 is one
 * `limit({ key })` call; a peek (cost 0) calls nothing and reports a full quota; a cost
 * above 1 is a `TypeError` (the binding counts one per call). The binding reports only
 * pass or fail, so a decision's `remaining` is an upper bound (`limit - cost` when
 * admitted, 0 when denied) and `retryAfterMs` / `resetAfterMs` are the period (the count
 * resets within it). It cannot give back (no `refund`: no concurrency leases, no
 * outcome-aware counting) nor forget a key (`reset` rejects).
 *
 * @throws {@link SluiceConfigError} naming `approximate` (not exactly `true`), `binding`
 *   (no `limit` function; a KV namespace: KV is not a counter store), `limit`, `period`
 *   (10 or 60), or every unknown option.
 * @example
 * ```ts
 * import { rateLimit } from '@sluice/hono';
 * import { WorkersRateLimitBindingStore } from '@sluice/cloudflare';
 * import { env } from 'cloudflare:workers';
 *
 * // wrangler.toml: [[ratelimits]] name = "MY_RATE_LIMITER", namespace_id = "1001",
 * //                simple = { limit = 100, period = 60 }
 * const store = new WorkersRateLimitBindingStore(env.MY_RATE_LIMITER, {
 *   approximate: true,
 *   limit: 100,
 *   period: 60,
 * });
 * app.use(rateLimit({ limit: '100/min', store }));
 * ```
 */
export class WorkersRateLimitBindingStore implements Store {
  /** The binding's requests per period. */
  readonly limit: number;
  /** The binding's period, in **seconds**. */
  readonly period: 10 | 60;
  readonly #binding: RateLimitBindingLike;
  /** Algorithms already checked against the binding's limit. */
  readonly #checked = new WeakSet<Algorithm>();

  constructor(binding: RateLimitBindingLike, options: WorkersRateLimitBindingStoreOptions) {
    if (options === null || typeof options !== 'object') {
      throw new SluiceConfigError(
        'approximate',
        undefined,
        'true (an options object { approximate: true, limit, period })',
        {
          hint:
            'the rate-limiting binding counts per Cloudflare location and eventually ' +
            'consistently: it is approximate, and sluice uses it only when you say so',
        },
      );
    }
    checkOptionNames(options, OPTION_NAMES, 'new WorkersRateLimitBindingStore()');
    if (options.approximate !== true) {
      throw new SluiceConfigError('approximate', options.approximate, 'true', {
        hint:
          'the rate-limiting binding counts per Cloudflare location and eventually ' +
          'consistently, without remaining or reset: it may admit more than the limit. ' +
          'Write approximate: true to accept that, or use DurableObjectStore (exact)',
      });
    }
    const b = binding as RateLimitBindingLike | null;
    if (b === null || typeof b !== 'object' || typeof b.limit !== 'function') {
      throw new SluiceConfigError(
        'binding',
        binding,
        'a Workers rate-limiting binding (env.MY_RATE_LIMITER, with limit({ key }))',
        { hint: isKvNamespaceLike(binding) ? KV_REFUSAL : undefined },
      );
    }
    if (!Number.isInteger(options.limit) || options.limit < 1) {
      throw new SluiceConfigError(
        'limit',
        options.limit,
        "an integer >= 1: the binding's simple.limit",
      );
    }
    if (options.period !== 10 && options.period !== 60) {
      throw new SluiceConfigError('period', options.period, '10 or 60 (seconds)', {
        hint: 'Cloudflare allows only these periods for a rate-limiting binding',
      });
    }
    this.#binding = b;
    this.limit = options.limit;
    this.period = options.period;
  }

  /** One `limit({ key })` call (cost 1); a peek (cost 0) calls nothing. */
  consume(key: string, algorithm: Algorithm, cost: number, _nowMs: number): Promise<Decision> {
    try {
      this.#check(algorithm);
    } catch (error) {
      return Promise.reject(error);
    }
    const periodMs = this.period * 1000;
    const limit = this.limit;
    if (cost === 0) {
      return Promise.resolve({
        allowed: true,
        limit,
        remaining: limit,
        retryAfterMs: 0,
        resetAfterMs: 0,
        cost,
      });
    }
    if (cost !== 1) {
      return Promise.reject(
        new TypeError(
          `sluice: the rate-limiting binding counts one request per call; a cost of ${cost} cannot be charged`,
        ),
      );
    }
    return this.#binding.limit({ key }).then(({ success }) => ({
      allowed: success,
      limit,
      // Upper bounds: the binding says only pass or fail.
      remaining: success ? limit - 1 : 0,
      retryAfterMs: success ? 0 : periodMs,
      resetAfterMs: periodMs,
      cost: 1,
    }));
  }

  /** The binding cannot forget a key: always rejects. */
  /** {@link Store.ready}: the binding was checked at construction; always ready. */
  ready(): Promise<void> {
    return Promise.resolve();
  }

  reset(_key: string): Promise<void> {
    return Promise.reject(new Error('sluice: a Workers rate-limiting binding cannot reset a key'));
  }

  /** @throws `TypeError` unless `algorithm` counts the binding's limit per its period. */
  #check(algorithm: Algorithm): void {
    if (this.#checked.has(algorithm)) return;
    const windowMs = (algorithm as { windowMs?: unknown }).windowMs;
    const spanMs =
      algorithm instanceof GcraAlgorithm
        ? (algorithm.limit * algorithm.intervalTicks) / algorithm.ticksPerMs
        : (algorithm.kind === 'fixed-window' || algorithm.kind === 'sliding-window') &&
            algorithm.concurrent !== true &&
            algorithm.inner === undefined &&
            typeof windowMs === 'number'
          ? windowMs
          : undefined;
    if (algorithm.limit !== this.limit || spanMs !== this.period * 1000) {
      throw new TypeError(
        `sluice: the rate-limiting binding counts ${this.limit} per ${this.period} s (its ` +
          `wrangler.toml configuration); this limit asks for ${algorithm.description}: write ` +
          `a limit of ${this.limit} per ${this.period === 60 ? 'minute' : '10 s'}`,
      );
    }
    this.#checked.add(algorithm);
  }
}
