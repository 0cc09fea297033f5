import { type Algorithm, isAlgorithm } from '../algorithms/algorithm.js';
import { checkMax, grantsPartially } from '../algorithms/at-most.js';
import type { Decision } from '../algorithms/decision.js';
import { describe, SluiceConfigError } from '../common/errors.js';
import { checkOptionNames, optionNames } from '../common/known-options.js';
import { checkCallOptions, checkCost } from '../common/validate.js';
import { limitKeyPrefix } from '../keys/limit-key-prefix.js';
import { KeyOperations } from '../operations/key-operations.js';
import { operationsSnapshot } from '../operations/registry.js';
import type { CircuitBreakerOptions } from '../store-failure/circuit-breaker.js';
import { guardedStore } from '../store-failure/guarded-store.js';
import type { OverLimitCacheOptions } from '../store-failure/over-limit-cache.js';
import type { StoreErrorPolicy, StoreFailureLogger } from '../store-failure/store-failure.js';
import { type KeySpaceOwner, trackKeySpaces } from '../stores/key-spaces.js';
import { MemoryStore } from '../stores/memory-store.js';
import { chargeTimeOf, keySpaceView, type Store } from '../stores/store.js';
import {
  abortReason,
  callWaitMs,
  checkReservable,
  defaultSleep,
  type Reservation,
  type ReserveOptions,
  reservationOf,
  waitOrAbort,
} from './reservation.js';

export type { Reservation, ReserveOptions };

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
   * How {@link RateLimiter.acquire} waits, in ms; `signal` (when the call has one) aborts
   * the wait (it may then resolve early). Default: a `setTimeout` promise, cleared on abort.
   * Tests inject one that advances their fake clock.
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
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
  /** Give up at once when the wait would pass this many ms from the call. Default: no limit. */
  timeoutMs?: number;
  /**
   * Aborts the wait: the booked slot is given back exactly and the call rejects with the
   * signal's `reason` (an `AbortError` by default), as `fetch` does.
   */
  signal?: AbortSignal;
}

interface LimiterConfig {
  algorithm: Algorithm;
  store: Store;
  /** The store as the user gave it (its `operations`). */
  userStore: Store;
  prefix: string;
  clock: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Whether the user's store can book a future slot (`Store.reserve`). */
  storeReserves: boolean;
}

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
  /** What operator entries (`LimitOperations`) say about its keys, if the store has them. */
  readonly #operations: KeyOperations | undefined;
  /** Its key space for `MemoryStore#dump()`'s fingerprint (the store holds it weakly). */
  readonly #keySpaces: KeySpaceOwner;

  constructor(options: RateLimiterOptions) {
    this.#config = parseLimiterOptions(options);
    // `@<algorithm>` after the prefix (none for GCRA): a changed algorithm gets fresh keys.
    const { algorithm, prefix, store, userStore } = this.#config;
    const keyPrefix = limitKeyPrefix(prefix, algorithm);
    this.#keySpace = keySpaceView(store, keyPrefix);
    const space: [string, string] = [keyPrefix, algorithm.description];
    this.#keySpaces = { keySpaces: () => [space] };
    trackKeySpaces(userStore, this.#keySpaces);
    const snapshot = operationsSnapshot(userStore.operations, prefix);
    this.#operations =
      snapshot === undefined
        ? undefined
        : new KeyOperations(snapshot, algorithm, keyPrefix, this.#keySpace);
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

  /**
   * Grants as many units of `key` as the limit admits now, up to `max`, in ONE atomic store
   * call, for batch workers (valkey-go's and go-redis/redis_rate's `AllowAtMost`): no
   * probing. The decision's `cost` is what was granted (1..`max` when `allowed`); when
   * none was, `allowed` is false, `cost` 0, nothing is charged and `retryAfterMs` is the
   * wait until 1 unit would be. A grant of 0 is not an offence: a `blockFor` penalty does
   * not start on it. An operator allow grants `max` uncharged; a deny or ban grants none.
   * A store failure resolves by `onStoreError` (`'insurance'` grants in process, `'allow'`
   * all of `max`, `'deny'` none).
   *
   * @param max - the most units wanted: an integer >= 1.
   * @throws {@link SluiceConfigError} (synchronously) for a concurrency or adaptive limit
   *   (leases, not a rate: option `algorithm`), or a store without `consumeAtMost` (option
   *   `store`, named by its class; every store of sluice has it but the Workers
   *   rate-limiting binding's). The store is checked at the call, not at construction: a
   *   limiter that never calls `consumeAtMost` runs on any store.
   * @throws `TypeError` (synchronously) for a `max` that is not an integer >= 1.
   * @example
   * ```ts
   * const d = await limiter.consumeAtMost('emails', 500);
   * await sendBatch(queue.splice(0, d.cost)); // d.cost: 0..500 granted
   * if (!d.allowed) await sleep(d.retryAfterMs);
   * ```
   */
  consumeAtMost(key: string, max: number): Promise<Decision> {
    const n = checkMax(max);
    const { clock, userStore } = this.#config;
    let algorithm = this.#config.algorithm;
    if (!grantsPartially(algorithm)) {
      throw new SluiceConfigError(
        'algorithm',
        String(algorithm.description),
        'a rate (gcra, a bucket, a window, a calendar quota): a concurrency or adaptive limit grants leases, not part of a quota',
      );
    }
    const store = this.#keySpace;
    if (
      typeof userStore.consumeAtMost !== 'function' ||
      typeof store.consumeAtMost !== 'function'
    ) {
      throw new SluiceConfigError(
        'store',
        storeName(userStore),
        'a store that can grant part of a request (MemoryStore, RedisStore, PostgresStore, SqliteStore, DurableObjectStore: Store.consumeAtMost)',
      );
    }
    if (typeof key !== 'string') return notAString(key);
    const now = clock();
    const ops = this.#operations;
    try {
      const live = ops?.snapshot.active && ops.snapshot.live(now);
      if (live) {
        // Workers: the entries' reload this decision started (it never rejects), then decide.
        if (live !== true) return live.then(() => this.consumeAtMost(key, max));
        const operated = ops.operated(key, n, now);
        if (operated !== undefined) {
          if (!isAlgorithm(operated)) {
            return Promise.resolve(operated.allowed ? operated : { ...operated, cost: 0 });
          }
          algorithm = operated;
        }
      }
      return Promise.resolve(store.consumeAtMost(key, algorithm, n, now));
    } catch (error) {
      return Promise.reject(error);
    }
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
   * Books `cost` units (default 1) of `key` at their future slot, in ONE atomic store call
   * (GCRA: TAT′ = max(TAT, now) + cost·T, conforming at TAT′ − τ), when the wait is at most
   * `maxWait`; else books nothing. Requests are served in the order they reached the store,
   * across processes, with no polling: the caller waits `delayMs`, then goes. `cancel()`
   * gives the slot back exactly, once; an aborted `signal` cancels before the slot comes.
   * A store failure resolves by `onStoreError` (`'insurance'` books in process).
   *
   * @throws {@link SluiceConfigError} (synchronously) for an algorithm without a future slot
   *   (a window: fixedWindow, slidingWindow, slidingLog, a calendar window, a penalty).
   * @throws `TypeError` (synchronously) for a bad `cost` or `maxWait`, or a store without
   *   `reserve` and `refund`.
   * @example
   * ```ts
   * const r = await limiter.reserve('jobs', { maxWait: '5s' });
   * if (r.allowed) { await sleep(r.delayMs); await run(); }
   * else console.log(`try again in ${r.decision.retryAfterMs} ms`);
   * ```
   */
  reserve(key: string, options: ReserveOptions): Promise<Reservation> {
    checkCallOptions('reserve', options);
    if (options === undefined)
      throw new TypeError('sluice: reserve(key, { maxWait }) needs maxWait');
    const cost = options.cost === undefined ? 1 : checkCost(options.cost);
    const maxWaitMs = callWaitMs('maxWait', options.maxWait);
    return this.#reserve(key, cost, maxWaitMs, options.signal);
  }

  #reserve(
    key: string,
    cost: number,
    maxWaitMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Reservation> {
    const { clock, storeReserves } = this.#config;
    let algorithm = this.#config.algorithm;
    checkReservable(algorithm);
    const store = this.#keySpace;
    if (
      !storeReserves ||
      typeof store.reserve !== 'function' ||
      typeof store.refund !== 'function'
    ) {
      throw new TypeError('sluice: this store cannot reserve (it has no reserve or refund)');
    }
    if (typeof key !== 'string') return notAString(key);
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    const now = clock();
    const ops = this.#operations;
    let booked: ReturnType<NonNullable<Store['reserve']>>;
    let operating = false;
    try {
      // perf: a field read when no operator entry is in force.
      const live = ops?.snapshot.active && ops.snapshot.live(now);
      if (live) {
        // Workers: the entries' reload this decision started (it never rejects), then book.
        if (live !== true) return live.then(() => this.#reserve(key, cost, maxWaitMs, signal));
        operating = true;
        const operated = ops.operated(key, cost, now);
        if (operated !== undefined) {
          // An allow is served at once and books nothing; a deny or a ban books nothing.
          if (!isAlgorithm(operated)) {
            const answer = { decision: operated, delayMs: 0 };
            return Promise.resolve(
              reservationOf(answer, () => Promise.resolve(operated), undefined, clock),
            );
          }
          algorithm = operated; // an override: its rate, on the same key (GCRA keeps its TAT)
        }
      }
      booked = store.reserve(key, algorithm, cost, now, maxWaitMs);
    } catch (error) {
      return Promise.reject(error);
    }
    if (operating && cost > 0) {
      // A refused booking is a denial for top(), as consume's are.
      booked = Promise.resolve(booked).then((answer) => {
        if (!answer.decision.allowed) ops!.snapshot.denied(`key:${key}`);
        return answer;
      });
    }
    const refund = store.refund;
    return Promise.resolve(booked).then((answer) =>
      reservationOf(
        answer,
        () => {
          const at = chargeTimeOf(answer.decision) ?? now;
          return Promise.resolve(refund.call(store, key, algorithm, cost, clock(), at));
        },
        signal,
        clock,
      ),
    );
  }

  /**
   * Redisson's `tryAcquire(permits, timeout)`: takes `cost` units from `key`, waiting for
   * them. On GCRA and the buckets it is one {@link RateLimiter.reserve} (one store call, the
   * slot booked in arrival order) plus the wait; on a window algorithm (no future slot) or a
   * store without `reserve`, it waits `retryAfterMs` between tries. Resolves to the
   * allowing decision, or at once to the denial when the wait would pass `timeoutMs` (or
   * can never succeed). Never sleeps past the deadline and never spins. An aborted
   * `signal` gives the booked slot back and rejects with the signal's reason.
   * @throws `TypeError` (synchronously) for `options` that is not an object, a bad `cost`, or
   *   a `timeoutMs` that is not a number >= 0.
   * @example
   * ```ts
   * const d = await limiter.acquire('partner-api', { timeoutMs: 10_000, signal });
   * if (d.allowed) await callPartner();
   * ```
   */
  acquire(key: string, options: AcquireOptions = {}): Promise<Decision> {
    checkCallOptions('acquire', options);
    const cost = options.cost === undefined ? 1 : checkCost(options.cost);
    const timeoutMs = options.timeoutMs ?? Number.POSITIVE_INFINITY;
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
      throw new TypeError(`sluice: timeoutMs must be a number >= 0, got ${describe(timeoutMs)}`);
    }
    const signal = options.signal;
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    const { algorithm, storeReserves } = this.#config;
    if (storeReserves && typeof algorithm.reserve === 'function') {
      return this.#acquireSlot(key, cost, timeoutMs, signal);
    }
    return this.#acquire(key, cost, timeoutMs, signal);
  }

  async #acquireSlot(
    key: string,
    cost: number,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Decision> {
    const maxWaitMs = timeoutMs === Number.POSITIVE_INFINITY ? Number.MAX_SAFE_INTEGER : timeoutMs;
    const booked = await this.#reserve(key, cost, maxWaitMs, undefined);
    if (!booked.allowed || booked.delayMs === 0) return booked.decision;
    if (await waitOrAbort(Math.ceil(booked.delayMs), this.#config.sleep, signal)) {
      return booked.decision;
    }
    await booked.cancel();
    throw abortReason(signal!);
  }

  async #acquire(
    key: string,
    cost: number,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Decision> {
    const { clock, sleep } = this.#config;
    const deadline = clock() + timeoutMs;
    for (;;) {
      const decision = await this.#decide(key, cost);
      if (decision.allowed || decision.retryAfterMs < 0) return decision;
      const wait = Math.ceil(decision.retryAfterMs);
      if (clock() + wait > deadline) return decision;
      if (!(await waitOrAbort(wait, sleep, signal))) throw abortReason(signal!);
    }
  }

  #decide(key: string, cost: number): Promise<Decision> {
    if (typeof key !== 'string') return notAString(key);
    const { clock } = this.#config;
    let algorithm = this.#config.algorithm;
    const now = clock();
    const ops = this.#operations;
    try {
      // perf: a field read when no operator entry is in force.
      const live = ops?.snapshot.active && ops.snapshot.live(now);
      if (live) {
        // Workers: the entries' reload this decision started (it never rejects), then decide.
        if (live !== true) return live.then(() => this.#decide(key, cost));
        const operated = ops.operated(key, cost, now);
        if (operated !== undefined) {
          if (!isAlgorithm(operated)) return Promise.resolve(operated);
          algorithm = operated;
        }
        const d = this.#keySpace.consume(key, algorithm, cost, now);
        if (d instanceof Promise) {
          return d.then((x) => {
            if (!x.allowed && cost > 0) ops.snapshot.denied(`key:${key}`);
            return x;
          });
        }
        if (!d.allowed && cost > 0) ops.snapshot.denied(`key:${key}`);
        return Promise.resolve(d);
      }
      // A store's promise is returned as it is; a decision is wrapped.
      return Promise.resolve(this.#keySpace.consume(key, algorithm, cost, now));
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** A store as an error names it: its class (`WorkersRateLimitBindingStore`), never its state. */
function storeName(store: Store): string {
  const name = (store as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? name : 'a custom store';
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
  const { store: guarded, userStore } = guardedStore({
    store,
    onStoreError,
    logger,
    requireReset: true,
    breaker,
    overLimit: overLimitCache,
  });
  if (typeof prefix !== 'string') throw new SluiceConfigError('prefix', prefix, 'a string');
  if (typeof clock !== 'function')
    throw new SluiceConfigError('clock', clock, 'a function returning ms since the Unix epoch');
  if (typeof sleep !== 'function')
    throw new SluiceConfigError('sleep', sleep, 'a function (ms) => Promise<void>');
  const storeReserves = typeof (userStore as Store).reserve === 'function';
  return {
    algorithm,
    store: guarded,
    userStore: userStore as Store,
    prefix,
    clock,
    sleep,
    storeReserves,
  };
}
