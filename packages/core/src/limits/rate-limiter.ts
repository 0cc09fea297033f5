import { type Algorithm, isAlgorithm } from '../algorithms/algorithm.js';
import type { Decision } from '../algorithms/decision.js';
import { algorithmKeyTag } from '../algorithms/key-tag.js';
import { describe, SluiceConfigError } from '../common/errors.js';
import { checkOptionNames, optionNames } from '../common/known-options.js';
import { checkCallOptions, checkCost } from '../common/validate.js';
import type { CircuitBreakerOptions } from '../store-failure/circuit-breaker.js';
import { guardedStore } from '../store-failure/guarded-store.js';
import type { OverLimitCacheOptions } from '../store-failure/over-limit-cache.js';
import type { StoreErrorPolicy, StoreFailureLogger } from '../store-failure/store-failure.js';
import { MemoryStore } from '../stores/memory-store.js';
import { chargeTimeOf, keySpaceView, type Store } from '../stores/store.js';

/** Options of {@link RateLimiter}. */
export interface RateLimiterOptions {
  /** The algorithm and its parameters, e.g. `gcra({ rate: 30, period: '1m', burst: 15 })`. Required. */
  algorithm: Algorithm;
  /** Where state lives. Default: a new {@link MemoryStore}. */
  store?: Store;
  /**
   * Prepended to every key as `<prefix>:<key>`. Default `'sl'`: short, since every byte of a
   * key is kept per key in Redis (`sl:user:1`). An algorithm other than GCRA marks it
   * (`<prefix>@fw:<key>` for a fixed window, `@sw`, `@log`, `@cal`), so a key moved to
   * another algorithm starts fresh instead of its state being misread.
   */
  prefix?: string;
  /** The time in **ms since the Unix epoch**. Default `Date.now`. Tests inject a fake one. */
  clock?: () => number;
  /**
   * How {@link RateLimiter.acquire} waits, in ms. Default: a `setTimeout` promise. Tests
   * inject one that advances their fake clock.
   */
  sleep?: (ms: number) => Promise<void>;
  /**
   * What to do while the store fails or answers later than its own `timeoutMs`:
   * `'insurance'` (default: decide in process with a MemoryStore, log once per outage),
   * `'allow'` (fail open) or `'deny'` (fail closed). A store failure never rejects
   * `consume`. Not applied to a {@link MemoryStore}, which cannot fail.
   */
  onStoreError?: StoreErrorPolicy;
  /** Where store-failure notices go. Default `console`. */
  logger?: StoreFailureLogger;
  /**
   * The circuit breaker in front of a store that can fail (not a {@link MemoryStore}):
   * after a failure or timeout, `onStoreError` decides at once for `cooldownMs` (default
   * 1000 ms), then one probe call at a time tries the store until one answers. `clock`
   * (monotonic ms, default `performance.now`) is for tests. Checked at construction.
   */
  breaker?: CircuitBreakerOptions;
  /**
   * The over-limit cache in front of a store that can fail (not a {@link MemoryStore}): a
   * key the store denied is remembered in process until its retry time, and its requests
   * are denied from memory, without a store call, with the decision the store would give
   * (as Envoy's rate limit service does); during an outage `'insurance'` keeps denying it.
   * `{ maxKeys }` (an integer >= 1, default 10 000) bounds it; `false` turns it off (every
   * request asks the store, e.g. when other processes often `reset` keys). Default on.
   * Checked at construction.
   *
   * @example
   * ```ts
   * new RateLimiter({ algorithm, store: redisStore, overLimitCache: { maxKeys: 50_000 } });
   * ```
   */
  overLimitCache?: OverLimitCacheOptions | false;
}

/** Options of one {@link RateLimiter.consume} call. */
export interface ConsumeOptions {
  /** Units to take: an integer >= 0 (0 = peek). Default 1. A bad value is a `TypeError`. */
  cost?: number;
}

/** Options of {@link RateLimiter.refund}. */
export interface RefundOptions {
  /**
   * Units to give back: an integer >= 0. Default: `charge.cost` when `charge` is given,
   * else 1. A bad value is a `TypeError`.
   */
  cost?: number;
  /**
   * The decision the charge returned (`await limiter.consume(key)`): a store that keeps its
   * own clock (RedisStore, `clock: 'server'`) recorded when it decided it, which makes the
   * give-back exact on every algorithm.
   */
  charge?: Decision;
  /**
   * When the charge was decided, **ms since the Unix epoch** on the limiter's `clock` (read
   * it just before `consume`). Default: the charge's recorded time (see `charge`), else
   * now. GCRA (and leaky / token bucket) does not need it; the window algorithms give back
   * only from the window or log entries of that time.
   */
  atMs?: number;
}

/** Options of {@link RateLimiter.acquire}. */
export interface AcquireOptions extends ConsumeOptions {
  /** Give up once the next try would fall past this many ms from the call. Default: no limit. */
  timeoutMs?: number;
}

interface LimiterConfig {
  algorithm: Algorithm;
  store: Store;
  prefix: string;
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Applies one algorithm on one store to keys: the core of sluice.
 *
 * ```ts
 * const limiter = new RateLimiter({ algorithm: gcra({ rate: 30, period: '1m', burst: 15 }) });
 * const d = await limiter.consume('jack:reply'); // d.allowed, d.remaining, d.retryAfterMs…
 * ```
 *
 * @throws {@link SluiceConfigError} at construction for an unknown option name, a missing `algorithm`, an invalid `breaker`
 *   or `overLimitCache`, a `store`
 *   without `consume`/`reset`, a non-string `prefix` or a non-function `clock`/`sleep`.
 */
export class RateLimiter {
  readonly #config: LimiterConfig;
  /**
   * The store's keys under `<prefix>:` (`Store.scope`): on a MemoryStore a key space of its
   * own, so the caller's key string is used as is (no concatenation, its hash cached by V8).
   */
  readonly #keySpace: Store;

  constructor(options: RateLimiterOptions) {
    this.#config = parseLimiterOptions(options);
    // `@<algorithm>` after the prefix (none for GCRA): a changed algorithm gets fresh keys.
    const tag = algorithmKeyTag(this.#config.algorithm);
    this.#keySpace = keySpaceView(this.#config.store, `${this.#config.prefix}${tag}:`);
  }

  /** The algorithm this limiter runs. */
  get algorithm(): Algorithm {
    return this.#config.algorithm;
  }

  /** The store this limiter uses (a non-memory store is wrapped by its `onStoreError` policy). */
  get store(): Store {
    return this.#config.store;
  }

  /**
   * Takes `cost` units (default 1) from `key` if the algorithm admits them.
   * Resolves to the {@link Decision}; a denial is a decision, not a rejection.
   * @throws `TypeError` (synchronously) for `options` that is not an object (e.g.
   *   `consume(key, 5)`: write `consume(key, { cost: 5 })`) or a cost that is not an
   *   integer >= 0.
   * @example
   * ```ts
   * const d = await limiter.consume('user:1', { cost: 5 });
   * if (!d.allowed) console.log(`retry in ${d.retryAfterMs} ms`);
   * ```
   */
  consume(key: string, options?: ConsumeOptions): Promise<Decision> {
    checkCallOptions('consume', options);
    const cost = options === undefined || options.cost === undefined ? 1 : checkCost(options.cost);
    return this.#decide(key, cost);
  }

  /** What `consume(key)` would decide, without taking anything (cost 0). */
  peek(key: string): Promise<Decision> {
    return this.#decide(key, 0);
  }

  /**
   * Gives back `cost` units that `consume(key)` took: the exact inverse of the charge on
   * every algorithm (each algorithm's `refund`, its Lua twin's on Redis), never more than
   * the charge took nor above full capacity. For a request that should not have counted
   * (express-rate-limit's `skipSuccessfulRequests`) or a lease that ends
   * (`Limit.concurrent`). Resolves to the key's peek afterwards; a store failure resolves
   * to the `onStoreError` policy's peek (it never rejects for that).
   *
   * @throws `TypeError` (synchronously) for a cost that is not an integer >= 0, an `atMs`
   *   that is not a finite number, or a store without `refund`.
   * @example
   * const at = Date.now();
   * const d = await limiter.consume('login:10.0.0.1', { cost: 1 });
   * if (d.allowed && loginSucceeded) await limiter.refund('login:10.0.0.1', { charge: d, atMs: at });
   */
  refund(key: string, options: RefundOptions = {}): Promise<Decision> {
    const charge = options.charge;
    const cost = checkCost(options.cost ?? charge?.cost ?? 1);
    const { algorithm, clock } = this.#config;
    const now = clock();
    const at = options.atMs ?? (charge === undefined ? undefined : chargeTimeOf(charge)) ?? now;
    if (typeof at !== 'number' || !Number.isFinite(at)) {
      throw new TypeError(`sluice: atMs must be a finite number of ms, got ${String(at)}`);
    }
    const store = this.#keySpace;
    if (typeof store.refund !== 'function') {
      throw new TypeError('sluice: this store cannot give back (it has no refund)');
    }
    if (typeof key !== 'string') return notAString(key);
    try {
      return Promise.resolve(store.refund(key, algorithm, cost, now, at));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Forgets `key`: its next decision sees a full quota. */
  async reset(key: string): Promise<void> {
    await this.#keySpace.reset(key);
  }

  /**
   * Redisson's `tryAcquire(permits, timeout)`: takes `cost` units from `key`, waiting
   * `retryAfterMs` between tries until admitted. Resolves to the allowing decision, or to
   * the last denial as soon as the next try would fall past `timeoutMs` (or can never
   * succeed). Never sleeps past the deadline and never spins.
   * @throws `TypeError` (synchronously) for `options` that is not an object, a bad `cost`, or
   *   a `timeoutMs` that is not a number >= 0.
   */
  acquire(key: string, options: AcquireOptions = {}): Promise<Decision> {
    checkCallOptions('acquire', options);
    const cost = options.cost === undefined ? 1 : checkCost(options.cost);
    const timeoutMs = options.timeoutMs ?? Number.POSITIVE_INFINITY;
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
      throw new TypeError(`sluice: timeoutMs must be a number >= 0, got ${describe(timeoutMs)}`);
    }
    return this.#acquire(key, cost, timeoutMs);
  }

  async #acquire(key: string, cost: number, timeoutMs: number): Promise<Decision> {
    const { clock, sleep } = this.#config;
    const deadline = clock() + timeoutMs;
    for (;;) {
      const decision = await this.#decide(key, cost);
      if (decision.allowed || decision.retryAfterMs < 0) return decision;
      const wait = Math.ceil(decision.retryAfterMs);
      if (clock() + wait > deadline) return decision;
      await sleep(wait);
    }
  }

  #decide(key: string, cost: number): Promise<Decision> {
    if (typeof key !== 'string') return notAString(key);
    const { algorithm, clock } = this.#config;
    try {
      // A store's promise is returned as it is; a decision is wrapped.
      return Promise.resolve(this.#keySpace.consume(key, algorithm, cost, clock()));
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** The rejection of a call whose key is not a string (out of line: see `#decide`). */
function notAString(key: unknown): Promise<never> {
  return Promise.reject(new TypeError(`sluice: key must be a string, got ${typeof key}`));
}

const LIMITER_OPTIONS = optionNames<RateLimiterOptions>({
  algorithm: true,
  store: true,
  prefix: true,
  clock: true,
  sleep: true,
  onStoreError: true,
  logger: true,
  breaker: true,
  overLimitCache: true,
});

function parseLimiterOptions(options: RateLimiterOptions): LimiterConfig {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError(
      'options',
      options,
      'an object { algorithm, store?, prefix?, clock? }',
    );
  }
  checkOptionNames(options, LIMITER_OPTIONS, 'new RateLimiter()');
  const {
    algorithm,
    store = new MemoryStore(),
    prefix = 'sl',
    clock = Date.now,
    sleep = defaultSleep,
    onStoreError = 'insurance',
    logger = console,
    breaker,
    overLimitCache,
  } = options;
  if (!isAlgorithm(algorithm)) {
    throw new SluiceConfigError(
      'algorithm',
      algorithm,
      'an algorithm such as gcra({ rate, period })',
    );
  }
  const guarded = guardedStore({
    store,
    onStoreError,
    logger,
    requireReset: true,
    breaker,
    overLimit: overLimitCache,
  }).store;
  if (typeof prefix !== 'string') throw new SluiceConfigError('prefix', prefix, 'a string');
  if (typeof clock !== 'function')
    throw new SluiceConfigError('clock', clock, 'a function returning ms since the Unix epoch');
  if (typeof sleep !== 'function')
    throw new SluiceConfigError('sleep', sleep, 'a function (ms) => Promise<void>');
  return { algorithm, store: guarded, prefix, clock, sleep };
}
