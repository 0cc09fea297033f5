import type { Algorithm } from '../algorithms/algorithm.js';
import type { Decision } from '../algorithms/decision.js';
import { SluiceConfigError } from '../common/errors.js';
import { MemoryStore } from '../stores/memory-store.js';
import {
  consumeEach,
  fullKey,
  type Store,
  type StoreRequest,
  type StoreReservation,
  storeReady,
} from '../stores/store.js';
import {
  type BreakerState,
  CircuitBreaker,
  type CircuitBreakerOptions,
  checkBreakerOptions,
} from './circuit-breaker.js';
import {
  type FailSafeStoreOptions,
  parseFailSafeOptions,
  type StoreErrorPolicy,
  type StoreFailureLogger,
} from './fail-safe-options.js';
import { checkOverLimitOptions, OverLimitCache } from './over-limit-cache.js';
import { isStoreKeyError, keyErrorReason } from './store-key-error.js';
import { isStoreNotReadyError } from './store-not-ready-error.js';

export type { FailSafeStoreOptions, StoreErrorPolicy, StoreFailureLogger };

/**
 * Decisions a {@link FailSafeStore} made without its store because the store failed (the
 * policy's, or the over-limit cache's outage answers): how metrics tell `store_error`.
 */
const withoutStore = new WeakSet<Decision>();
/** Whether {@link withoutStore} was ever used: the common case looks nothing up. */
let anyWithoutStore = false;

function markWithoutStore<T extends Decision | Decision[]>(decided: T): T {
  anyWithoutStore = true;
  if (Array.isArray(decided)) for (const d of decided) withoutStore.add(d);
  else withoutStore.add(decided);
  return decided;
}

/**
 * Whether `decision`, or any of `decisions`, was made by `onStoreError` (or the over-limit
 * cache during an outage) because the store failed, not by the store.
 */
export function decidedWithoutStore(decision: Decision, decisions?: readonly Decision[]): boolean {
  if (!anyWithoutStore) return false;
  if (withoutStore.has(decision)) return true;
  return decisions?.some((d) => withoutStore.has(d)) === true;
}

/** `retryAfterMs` of the denials `onStoreError: 'deny'` gives: 1000 ms. */
export const DENY_RETRY_MS = 1000;

/** The most algorithms whose key errors are remembered as logged (then logged again). */
const MAX_KEY_ERROR_NOTICES = 100;

/**
 * A store error as one short line: its message's first line, at most 200 characters (an
 * ioredis error object also carries the command: the script's source and the keys).
 */
function describeError(error: unknown): string {
  // Its message is short and names the fix: kept whole.
  if (isStoreNotReadyError(error)) return error.message.replaceAll('\n', ' ');
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const line = text.split('\n', 1)[0]!.trim();
  if (line === '') return error instanceof Error ? error.name : 'an error';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** What a failing domain's breaker was made for: to retire it once its domain moved. */
interface DomainOf {
  domain: string;
  /** A key that was in the domain when its breaker was made. */
  key: string;
}

/**
 * Wraps a {@link Store} with a {@link StoreErrorPolicy} and a {@link CircuitBreaker} per
 * failure domain (one for the whole store, or one per `store.failureDomain(key)`, e.g. per
 * Redis Cluster node): no store failure ever reaches the caller as a rejection, and after a
 * failure or timeout the policy decides at once, without calling the store, until a probe
 * (one call at a time, every `cooldownMs`) answers. The breaker closes then, and the same
 * store is used again (no rebuild).
 *
 * **Over-limit cache** (as Envoy's rate limit service does): a key the store denied is remembered in process until
 * its retry time ({@link OverLimitCache}): its requests are denied from memory, without a
 * call to the store, with the exact decision the store would give (`retryAfterMs` and
 * `resetAfterMs` shrinking with time), on every policy and during an outage too, so
 * `'insurance'` keeps denying an exhausted client instead of handing it a fresh in-memory
 * bucket. A key the cache does not know is decided by the store, or by the policy while its
 * breaker is open. `reset(key)` forgets the key there too.
 *
 * **Logging:** "the store is failing" means at least one of its domains' breakers is not
 * closed. One line (`warn`) when the first domain fails, one when the last one answers
 * again: two lines per outage, however many nodes fail within it, and a healthy node's
 * answers never log while another node is failing.
 *
 * @example
 * ```ts
 * const store = new FailSafeStore({
 *   store: new RedisStore({ client }),
 *   onStoreError: 'insurance',
 *   breaker: { cooldownMs: 500 },
 * });
 * const limiter = new RateLimiter({ algorithm: gcra({ rate: 10, period: '1s' }), store });
 * ```
 *
 * @param options - see {@link FailSafeStoreOptions}: `store`, `onStoreError` (default
 *   `'insurance'`), `logger` (default `console`), `breaker`, `overLimitCache`.
 * @throws {@link SluiceConfigError} naming `options`, `store`, `onStoreError`, `logger`,
 *   `breaker`, `breaker.cooldownMs`, `breaker.clock`, `overLimitCache` or
 *   `overLimitCache.maxKeys`, or every unknown option name.
 */
export class FailSafeStore implements Store {
  readonly #store: Store;
  /** The failure mode (`onStoreError`). */
  readonly #mode: StoreErrorPolicy;
  readonly #logger: StoreFailureLogger;
  readonly #breakerOptions: CircuitBreakerOptions | undefined;
  /** The breaker of the whole store, when it has no failure domains. */
  readonly #whole: CircuitBreaker;
  readonly #domainOf: ((key: string) => string) | undefined;
  readonly #breakers = new Map<string, CircuitBreaker>();
  /** The breakers that are not closed: the store is failing while this is not empty. */
  readonly #down = new Set<CircuitBreaker>();
  #insurance: MemoryStore | undefined;
  /** Keys the store denied, until their retry time; undefined with `overLimit: false`. */
  readonly #overLimit: OverLimitCache | undefined;
  /** Each domain breaker's domain and a key of it (failure domains only). */
  readonly #domainInfo = new Map<CircuitBreaker, DomainOf>();
  /** The breakers' clock (ms) and cooldown: when failing breakers are checked for retiring. */
  readonly #clock: () => number;
  readonly #cooldownMs: number;
  #sweptAt = Number.NEGATIVE_INFINITY;
  /** Algorithms (by description) whose key errors were logged. */
  readonly #keyErrorsLogged = new Set<string>();

  constructor(options: FailSafeStoreOptions) {
    const { store, onStoreError, logger, breaker, overLimitCache } = parseFailSafeOptions(options);
    const maxKeys = checkOverLimitOptions(overLimitCache);
    this.#overLimit = maxKeys > 0 ? new OverLimitCache(maxKeys) : undefined;
    this.#store = store;
    this.#mode = onStoreError;
    this.#logger = logger;
    this.#breakerOptions = breaker;
    this.#whole = new CircuitBreaker(breaker);
    const { clock, cooldownMs } = checkBreakerOptions(breaker);
    this.#clock = clock;
    this.#cooldownMs = cooldownMs;
    if (typeof store.failureDomain === 'function') {
      const domainOf = store.failureDomain;
      this.#domainOf = (key) => domainOf.call(store, key);
    }
  }

  /** {@link Store.ready}: the wrapped store's (no policy answers it: start-up fails). */
  ready(): Promise<void> {
    return storeReady(this.#store);
  }

  /** Whether the store is failing: some breaker is open or half-open. */
  get failing(): boolean {
    return this.#down.size > 0;
  }

  /**
   * The state of the breaker `key` goes through (the whole store's, or its failure
   * domain's): `'closed'`, `'open'` or `'half-open'`.
   */
  breakerState(key: string): BreakerState {
    return this.#breakerOf(key).state;
  }

  /** How many keys the over-limit cache holds (0 without one). */
  get overLimitKeys(): number {
    return this.#overLimit?.size ?? 0;
  }

  consume(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
  ): Decision | Promise<Decision> {
    const overLimit = this.#overLimit;
    if (this.#down.size !== 0) this.#sweep();
    const breaker = this.#domainOf === undefined ? this.#whole : this.#breakerOf(key);
    let probe = false;
    if (breaker.state !== 'closed') {
      // #decide answers from the over-limit cache first, then by the policy.
      if (breaker.tryAcquire() === 'reject') {
        return Promise.resolve(this.#decide(key, algorithm, cost, nowMs));
      }
      probe = true;
    } else if (overLimit !== undefined && overLimit.size > 0) {
      const known = overLimit.answer(key, algorithm, cost, nowMs, false);
      if (known !== undefined) return Promise.resolve(known);
    }
    let result: Decision | Promise<Decision>;
    try {
      result = this.#store.consume(key, algorithm, cost, nowMs);
    } catch (error) {
      return Promise.resolve(this.#fallback(error, breaker, probe, key, algorithm, cost, nowMs));
    }
    // perf: a store that answers synchronously (SqliteStore) stays promise-free through the
    // policy, as a MemoryStore does: the HTTP pipeline then decides in the same tick. A
    // native promise (Redis, Postgres) is told apart first, by instanceof: a property
    // lookup of `then` on every decision measured +0.4 µs per Redis decision.
    if (!(result instanceof Promise) && !isThenable(result)) {
      if (probe) this.#answered(breaker);
      if (overLimit !== undefined) overLimit.record(key, algorithm, result, nowMs);
      return result;
    }
    return Promise.resolve(result).then(
      (decision) => {
        if (probe) this.#answered(breaker);
        if (overLimit !== undefined) overLimit.record(key, algorithm, decision, nowMs);
        return decision;
      },
      (error: unknown) => {
        if (!isStoreKeyError(error)) {
          return this.#fallback(error, breaker, probe, key, algorithm, cost, nowMs);
        }
        // The store answered, for this key only: no store failure.
        if (probe) this.#answered(breaker);
        this.#keyFailed(error, algorithm);
        return this.#decide(key, algorithm, cost, nowMs);
      },
    );
  }

  /**
   * {@link Store.consumeAll} under the policy and breakers: the store's own `consumeAll`
   * when it has one, else a peek then a consume of each key through {@link consume}. The
   * call goes through the breakers of every key's failure domain: when one of them is not
   * closed and lets no probe through, or the call fails, the policy decides every request
   * (`'insurance'`: all-or-nothing on the insurance store), and a failure counts against
   * the domain the error names (a string `failureDomain` on it: the node the call was
   * waiting on), else against every domain the call touched. Never rejects.
   */
  consumeAll(requests: readonly StoreRequest[], nowMs: number): Decision[] | Promise<Decision[]> {
    const store = this.#store;
    if (typeof store.consumeAll !== 'function') {
      const keys = requests.map(fullKey);
      return Promise.resolve(
        consumeEach(
          requests.map((r) => r.cost),
          (i, cost) => this.consume(keys[i]!, requests[i]!.algorithm, cost, nowMs),
        ),
      );
    }
    // This store keeps no key spaces of its own: the store behind sees full keys, as `consume`.
    const flat = requests.map(
      (r): StoreRequest => ({ key: fullKey(r), algorithm: r.algorithm, cost: r.cost }),
    );
    if (this.#down.size !== 0) this.#sweep();
    const breakers = new Set<CircuitBreaker>();
    for (const r of flat) breakers.add(this.#breakerOf(r.key));
    const probes: CircuitBreaker[] = [];
    for (const breaker of breakers) {
      if (breaker.state === 'closed') continue;
      if (breaker.tryAcquire() === 'reject') {
        // Probes granted to other domains: reported failed (reopened for a cooldown), so
        // no breaker stays half-open waiting for a probe that never ran.
        for (const probe of probes) probe.onFailure(true);
        return Promise.resolve(this.#decideAll(flat, nowMs));
      }
      probes.push(breaker);
    }
    const failed = (error: unknown): Decision[] => {
      if (isStoreKeyError(error)) {
        // The store answered: a key's state is unreadable, no store failure.
        for (const probe of probes) this.#answered(probe);
        const named = flat.find((r) => r.algorithm.description === error.algorithm);
        this.#keyFailed(error, named?.algorithm ?? flat[0]!.algorithm);
        return this.#decideAll(flat, nowMs);
      }
      // A failure that names its domain (the node a request across nodes was waiting on)
      // counts against that domain only: the other nodes answered.
      const named = (error as { failureDomain?: unknown } | null)?.failureDomain;
      const only = typeof named === 'string' ? this.#breakers.get(named) : undefined;
      for (const breaker of breakers) {
        if (only !== undefined && breakers.has(only) && breaker !== only) {
          // A probe granted here may not have run: reopened for a cooldown, as below.
          if (probes.includes(breaker)) breaker.onFailure(true);
          continue;
        }
        this.#failed(error, breaker, probes.includes(breaker));
      }
      return this.#decideAll(flat, nowMs);
    };
    let result: Decision[] | Promise<Decision[]>;
    try {
      result = store.consumeAll(flat, nowMs);
    } catch (error) {
      return Promise.resolve(failed(error));
    }
    const answered = (decisions: Decision[]): Decision[] => {
      for (const probe of probes) this.#answered(probe);
      return decisions;
    };
    // perf: a synchronous store's answer stays synchronous (see consume).
    if (!(result instanceof Promise) && !isThenable(result)) return answered(result);
    return Promise.resolve(result).then(answered, failed);
  }

  /** The policy's decisions of a whole {@link consumeAll} (full keys), without the store. */
  #decideAll(requests: readonly StoreRequest[], nowMs: number): Decision[] {
    if (this.#mode !== 'insurance') {
      return requests.map((r) => this.#decide(r.key, r.algorithm, r.cost, nowMs));
    }
    this.#insurance ??= new MemoryStore();
    return markWithoutStore(this.#insurance.consumeAll(requests, nowMs));
  }

  /**
   * {@link Store.refund} under the policy and breakers: gives back on the store while its
   * breaker is closed (a failure is counted and the insurance store, if any, gives back
   * instead), else on the insurance store (what charged during the outage). Forgets `key`
   * in the over-limit cache first: a key given back may fit again. Never rejects; resolves
   * to the key's peek (the policy's when the store did not answer).
   */
  refund(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    atMs: number,
  ): Promise<Decision> {
    this.#overLimit?.forget(key);
    const store = this.#store;
    const breaker = this.#breakerOf(key);
    const local = (): Decision =>
      this.#insurance !== undefined
        ? this.#insurance.refund(key, algorithm, cost, nowMs, atMs)
        : this.#decide(key, algorithm, 0, nowMs);
    if (breaker.state !== 'closed' || typeof store.refund !== 'function') {
      return Promise.resolve(local());
    }
    let result: Decision | Promise<Decision>;
    try {
      result = store.refund(key, algorithm, cost, nowMs, atMs);
    } catch (error) {
      this.#failed(error, breaker, false);
      return Promise.resolve(local());
    }
    return Promise.resolve(result).then(undefined, (error: unknown) => {
      this.#failed(error, breaker, false);
      return local();
    });
  }

  /**
   * {@link Store.reserve} under the policy and breakers, with `consume`'s fault contract: a
   * call that fails or times out books nothing on the store (its script is past its
   * deadline) and the failure mode decides: `'insurance'` books on the in-process store,
   * `'allow'` admits at once, `'deny'` denies. The over-limit cache is not read (a known
   * denial may still book within `maxWaitMs`) but forgets the key. Never rejects for a
   * store failure.
   * @throws `TypeError` (synchronously) when the store has no `reserve`.
   */
  reserve(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    maxWaitMs: number,
  ): Promise<StoreReservation> {
    const store = this.#store;
    if (typeof store.reserve !== 'function') {
      throw new TypeError('sluice: this store cannot reserve (it has no reserve)');
    }
    this.#overLimit?.forget(key);
    if (this.#down.size !== 0) this.#sweep();
    const breaker = this.#breakerOf(key);
    const local = (error: unknown, probe: boolean): StoreReservation => {
      if (error !== undefined) this.#failed(error, breaker, probe);
      return this.#reserveByMode(key, algorithm, cost, nowMs, maxWaitMs);
    };
    let probe = false;
    if (breaker.state !== 'closed') {
      if (breaker.tryAcquire() === 'reject') return Promise.resolve(local(undefined, false));
      probe = true;
    }
    let result: StoreReservation | Promise<StoreReservation>;
    try {
      result = store.reserve(key, algorithm, cost, nowMs, maxWaitMs);
    } catch (error) {
      return Promise.resolve(local(error, probe));
    }
    return Promise.resolve(result).then(
      (reservation) => {
        if (probe) this.#answered(breaker);
        return reservation;
      },
      (error: unknown) => local(error, probe),
    );
  }

  /**
   * {@link Store.consumeAtMost} under the policy and breakers, with `consume`'s fault
   * contract: a call that fails or times out grants nothing on the store, and the failure
   * mode decides: `'insurance'` grants on the in-process store, `'allow'` grants all of
   * `max`, `'deny'` grants none. The over-limit cache is not read (a key denied a larger
   * cost may still grant part of it). Never rejects for a store failure.
   * @throws `TypeError` (synchronously) when the store has no `consumeAtMost`.
   */
  consumeAtMost(
    key: string,
    algorithm: Algorithm,
    max: number,
    nowMs: number,
  ): Decision | Promise<Decision> {
    const store = this.#store;
    if (typeof store.consumeAtMost !== 'function') {
      throw new TypeError('sluice: this store cannot grant part of a request (no consumeAtMost)');
    }
    if (this.#down.size !== 0) this.#sweep();
    const breaker = this.#breakerOf(key);
    const local = (error: unknown, probe: boolean): Decision => {
      if (error !== undefined) this.#failed(error, breaker, probe);
      return markWithoutStore(this.#atMostByMode(key, algorithm, max, nowMs));
    };
    let probe = false;
    if (breaker.state !== 'closed') {
      if (breaker.tryAcquire() === 'reject') return local(undefined, false);
      probe = true;
    }
    let result: Decision | Promise<Decision>;
    try {
      result = store.consumeAtMost(key, algorithm, max, nowMs);
    } catch (error) {
      return local(error, probe);
    }
    if (!(result instanceof Promise) && !isThenable(result)) {
      if (probe) this.#answered(breaker);
      return result;
    }
    return Promise.resolve(result).then(
      (decision) => {
        if (probe) this.#answered(breaker);
        return decision;
      },
      (error: unknown) => {
        if (!isStoreKeyError(error)) return local(error, probe);
        if (probe) this.#answered(breaker);
        this.#keyFailed(error, algorithm);
        return local(undefined, false);
      },
    );
  }

  #atMostByMode(key: string, algorithm: Algorithm, max: number, nowMs: number): Decision {
    if (this.#mode === 'insurance') {
      this.#insurance ??= new MemoryStore();
      return this.#insurance.consumeAtMost(key, algorithm, max, nowMs);
    }
    const d = this.#decideByMode(key, algorithm, max, nowMs);
    return d.allowed ? d : { ...d, cost: 0 };
  }

  /**
   * {@link Store.reserveAll} under the policy and breakers, as {@link reserve} for each
   * part: the store's own `reserveAll` while every key's breaker is closed (or lets a probe
   * through), else, or when the call fails, the policy decides every part at once
   * (`'insurance'`: all-or-nothing on the insurance store). Never rejects for a store failure.
   * @throws `TypeError` (synchronously) when the store has no `reserveAll`.
   */
  reserveAll(
    requests: readonly StoreRequest[],
    nowMs: number,
    maxWaitMs: number,
  ): Promise<StoreReservation[]> {
    const store = this.#store;
    if (typeof store.reserveAll !== 'function') {
      throw new TypeError('sluice: this store cannot reserve several keys (it has no reserveAll)');
    }
    const flat = requests.map(
      (r): StoreRequest => ({ key: fullKey(r), algorithm: r.algorithm, cost: r.cost }),
    );
    for (const r of flat) this.#overLimit?.forget(r.key);
    if (this.#down.size !== 0) this.#sweep();
    const breakers = new Set(flat.map((r) => this.#breakerOf(r.key)));
    const probes: CircuitBreaker[] = [];
    const local = (): StoreReservation[] => {
      if (this.#mode === 'insurance') {
        this.#insurance ??= new MemoryStore();
        const booked = this.#insurance.reserveAll(flat, nowMs, maxWaitMs);
        for (const b of booked) markWithoutStore(b.decision);
        return booked;
      }
      return flat.map((r) => ({
        decision: this.#decide(r.key, r.algorithm, r.cost, nowMs),
        delayMs: 0,
      }));
    };
    for (const breaker of breakers) {
      if (breaker.state === 'closed') continue;
      if (breaker.tryAcquire() === 'reject') {
        for (const probe of probes) probe.onFailure(true);
        return Promise.resolve(local());
      }
      probes.push(breaker);
    }
    const failed = (error: unknown): StoreReservation[] => {
      for (const breaker of breakers) this.#failed(error, breaker, probes.includes(breaker));
      return local();
    };
    let result: StoreReservation[] | Promise<StoreReservation[]>;
    try {
      result = store.reserveAll(flat, nowMs, maxWaitMs);
    } catch (error) {
      return Promise.resolve(failed(error));
    }
    return Promise.resolve(result).then((booked) => {
      for (const probe of probes) this.#answered(probe);
      return booked;
    }, failed);
  }

  #reserveByMode(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    maxWaitMs: number,
  ): StoreReservation {
    if (this.#mode === 'insurance') {
      this.#insurance ??= new MemoryStore();
      const booked = this.#insurance.reserve(key, algorithm, cost, nowMs, maxWaitMs);
      markWithoutStore(booked.decision);
      return booked;
    }
    return { decision: this.#decide(key, algorithm, cost, nowMs), delayMs: 0 };
  }

  /**
   * Forgets `key` in the over-limit cache, the insurance store and the store; never rejects. While the key's
   * breaker is open the store is not called (the reset is lost there, as it would be if
   * the call failed); a reset may be the probe.
   */
  async reset(key: string): Promise<void> {
    this.#insurance?.reset(key);
    this.#overLimit?.forget(key);
    const breaker = this.#breakerOf(key);
    let probe = false;
    if (breaker.state !== 'closed') {
      if (breaker.tryAcquire() === 'reject') return;
      probe = true;
    }
    try {
      await this.#store.reset(key);
      if (probe) this.#answered(breaker);
    } catch (error) {
      this.#failed(error, breaker, probe);
    }
  }

  #breakerOf(key: string): CircuitBreaker {
    if (this.#domainOf === undefined) return this.#whole;
    const domain = this.#domainOf(key);
    let breaker = this.#breakers.get(domain);
    if (breaker === undefined) {
      breaker = new CircuitBreaker(this.#breakerOptions);
      this.#breakers.set(domain, breaker);
      this.#domainInfo.set(breaker, { domain, key });
    }
    return breaker;
  }

  /**
   * While failing, at most once per cooldown: retires the failing breakers whose domain no
   * longer serves their key (a Cluster failover promoted a replica: the key's slot is on
   * another node now, and nothing would ever probe the dead node's breaker again), so the
   * store is not reported failing forever and the next outage is logged.
   */
  #sweep(): void {
    const domainOf = this.#domainOf;
    if (domainOf === undefined) return;
    const now = this.#clock();
    if (now - this.#sweptAt < this.#cooldownMs) return;
    this.#sweptAt = now;
    for (const breaker of this.#down) {
      const info = this.#domainInfo.get(breaker);
      if (info === undefined || domainOf(info.key) === info.domain) continue;
      this.#down.delete(breaker);
      this.#domainInfo.delete(breaker);
      if (this.#breakers.get(info.domain) === breaker) this.#breakers.delete(info.domain);
      if (this.#down.size === 0) this.#logger.warn('sluice: store answering again');
    }
  }

  /** Logs, once per algorithm, that a key's state could not be read by it. */
  #keyFailed(error: { reason?: unknown; message: string }, algorithm: Algorithm): void {
    const logged = this.#keyErrorsLogged;
    const name = String(algorithm.description);
    if (logged.has(name)) return;
    if (logged.size >= MAX_KEY_ERROR_NOTICES) logged.clear();
    logged.add(name);
    const reason = typeof error.reason === 'string' ? error.reason : keyErrorReason(error.message);
    this.#logger.warn(
      `sluice: limit ${name} (algorithm ${String(algorithm.kind)}): ${reason}, e.g. after its algorithm changed; onStoreError '${this.#mode}' decides such keys until they expire (the store is answering)`,
    );
  }

  // biome-ignore lint/complexity/useMaxParams: perf: per request while the store fails; positional, no options object per call
  #fallback(
    error: unknown,
    breaker: CircuitBreaker,
    probe: boolean,
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
  ): Decision {
    this.#failed(error, breaker, probe);
    return this.#decide(key, algorithm, cost, nowMs);
  }

  /**
   * The decision without the store: the over-limit cache's (with its outage answers), else
   * the policy's.
   */
  #decide(key: string, algorithm: Algorithm, cost: number, nowMs: number): Decision {
    return markWithoutStore(this.#decideByMode(key, algorithm, cost, nowMs));
  }

  #decideByMode(key: string, algorithm: Algorithm, cost: number, nowMs: number): Decision {
    const known = this.#overLimit?.answer(key, algorithm, cost, nowMs, true);
    if (known !== undefined) return known;
    const limit = algorithm.limit;
    if (this.#mode === 'allow') {
      return { allowed: true, limit, remaining: limit, retryAfterMs: 0, resetAfterMs: 0, cost };
    }
    if (this.#mode === 'deny') {
      return {
        allowed: false,
        limit,
        remaining: 0,
        retryAfterMs: DENY_RETRY_MS,
        resetAfterMs: DENY_RETRY_MS,
        cost,
      };
    }
    this.#insurance ??= new MemoryStore();
    return this.#insurance.consume(key, algorithm, cost, nowMs);
  }

  #failed(error: unknown, breaker: CircuitBreaker, probe: boolean): void {
    if (!breaker.onFailure(probe)) return;
    this.#down.add(breaker);
    // The calls already waiting on this domain: decided by the policy now, not each at its
    // own timeout.
    try {
      this.#store.failPending?.(this.#domainInfo.get(breaker)?.domain);
    } catch {
      // a store's failPending must not throw; if it does, the calls time out as before
    }
    if (this.#down.size > 1) return; // the outage goes on: logged when it started
    this.#logger.warn(
      `sluice: store failing (${describeError(error)}); onStoreError '${this.#mode}' decides until it answers`,
    );
  }

  #answered(breaker: CircuitBreaker): void {
    if (!breaker.onSuccess(true)) return;
    this.#down.delete(breaker);
    if (this.#down.size === 0) this.#logger.warn('sluice: store answering again');
  }
}

/** Whether a store's answer is a promise (or another thenable) rather than the value itself. */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
