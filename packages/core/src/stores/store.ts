import type { Algorithm } from '../algorithms/algorithm.js';
import type { Decision } from '../algorithms/decision.js';
import type { OperationsSync } from '../operations/entry.js';

/**
 * Where limit state lives. A store runs one whole decision atomically: read the key's
 * state, run the algorithm's step, write the new state with its expiry. The in-memory
 * {@link MemoryStore} does it synchronously; `RedisStore` in @sluice/redis does it with one
 * `EVALSHA` of the algorithm's Lua twin.
 */
export interface Store {
  /**
   * Decides one request on `key` and records it if admitted.
   *
   * @param key - the full key (the limiter has already applied its prefix).
   * @param algorithm - which algorithm and parameters to run.
   * @param cost - units asked for: an integer >= 0 (0 = peek), already checked.
   * @param nowMs - the limiter's clock in ms since the Unix epoch. A store that keeps its
   *   own time (Redis `TIME`) may ignore it.
   */
  consume(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
  ): Decision | Promise<Decision>;

  /**
   * Optional: grants as many units of `key` as the algorithm admits now, up to `max`, in
   * one atomic call (`RateLimiter.consumeAtMost`, for batch workers; valkey-go's
   * `AllowAtMost`): the decision of `stepAtMost` (at-most.ts) on the key's state, its `cost`
   * the grant, `allowed` when at least 1 unit was granted; none granted charges nothing and
   * answers `retryAfterMs` until 1 unit would be. A store that runs the algorithms elsewhere
   * has a twin of it (Lua, PL/pgSQL). Without it, a limiter's `consumeAtMost` throws a
   * `SluiceConfigError` naming the store.
   *
   * @param max - the most units to grant: an integer >= 1, already checked.
   * @param nowMs - as in {@link Store.consume}.
   * @example
   * ```ts
   * const d = await store.consumeAtMost('jobs', fixedWindow({ limit: 100, window: '1m' }), 25, Date.now());
   * d.cost; // units granted, 0..25
   * ```
   */
  consumeAtMost?(
    key: string,
    algorithm: Algorithm,
    max: number,
    nowMs: number,
  ): Decision | Promise<Decision>;

  /** Forgets `key`: its next decision sees a full quota. */
  reset(key: string): void | Promise<void>;

  /**
   * Optional: resolves when the store can decide; rejects with the reason when it cannot
   * (a `StoreNotReadyError` naming the fix when its tables or functions are missing:
   * `PostgresStore` before `await store.migrate()`; the error of the call when the server
   * cannot be reached). Call it at start-up to fail there rather than in the first
   * requests' `onStoreError`; the adapters with a start-up hook do (Fastify's `onReady`,
   * NestJS's module init), through {@link storeReady}. Optional so a store of another
   * author still fits: a store without it is taken as ready. Every store of sluice has it.
   * Never charges anything.
   *
   * @example
   * ```ts
   * await store.ready(); // rejects naming `migrate()` when the table is missing
   * ```
   */
  ready?(): Promise<void>;

  /**
   * Optional: how operator entries (bans, allow and deny lists, overrides)
   * written on this store reach every process on it. `LimitOperations` needs it; limiters
   * on a store without it obey no operations. `MemoryStore`: this process only.
   */
  readonly operations?: OperationsSync;

  /**
   * Optional: the key space of `prefix` (the keys under it) as a store of its own, so
   * `scope(p).consume(k, …)` decides exactly as `consume(p + k, …)`. Limiters ask for it once
   * per prefix and keep it; a store implements it when it can decide faster without building
   * `p + k` per call (`MemoryStore`: a map of its own). Default: {@link keySpaceView} prefixes
   * each key.
   */
  scope?(prefix: string): Store;

  /**
   * Optional: the failure domain `key` lives in, for a store whose parts fail apart (on a
   * Redis Cluster, the master node serving the key's slot, e.g. `'127.0.0.1:7001'`). A
   * limiter keeps one circuit breaker per domain, so one node down does not stop the calls
   * to the others. Without it the whole store is one domain. Must be cheap and never throw.
   *
   * @example
   * ```ts
   * failureDomain: (key) => nodeOf(slotOf(key)) ?? ''
   * ```
   */
  failureDomain?(key: string): string;

  /**
   * Optional: answers at once every call still waiting on `domain` (a
   * {@link Store.failureDomain} value; undefined: the whole store) that was already sent,
   * by rejecting it (any error). A limiter calls it when that domain's circuit breaker
   * opens, so the calls in flight when a node stalled are decided by `onStoreError` now
   * instead of each waiting for its own timeout. Such a call may still run on the store if
   * it answers before the call's own deadline (it is then charged, as a reply late in
   * transit is). Must never throw.
   */
  failPending?(domain?: string): void;

  /**
   * Optional: decides several requests all-or-nothing, atomically: every one is admitted
   * and charged, or none is charged (a request under an array of limits passes all or is
   * charged by none, even while the store fails).
   * Each decision is what `consume` alone would answer at that moment, except that when
   * one request does not fit, the ones that would fit alone are not charged and report
   * their peek (a `cost` 0 decision) with their own `cost`; the ones that do not fit
   * report their real denial. A request fits when `cost <= remaining` of its peek (every
   * algorithm's admission rule). A failure of the call fails every request of it alike.
   * Without it, a limiter peeks every key, then consumes each: atomic only on a
   * synchronous store. {@link consumeEach} is that fallback.
   *
   * @param requests - the requests, in order (decisions come back in the same order).
   * @param nowMs - as in {@link Store.consume}.
   */
  consumeAll?(requests: readonly StoreRequest[], nowMs: number): Decision[] | Promise<Decision[]>;

  /**
   * Optional: gives back `cost` units that a `consume` of `key` admitted at `atMs`, by the
   * algorithm's `refund` (the exact inverse of the charge as far as the state allows; never
   * more than it took, never above full capacity), atomically. Resolves to the key's peek
   * afterwards. Outcome-aware counting and concurrency leases need it; a store
   * without it cannot give back.
   *
   * @param atMs - when the charge was decided, ms since the Unix epoch: the `nowMs` the
   *   charge was given, or, for a store that keeps its own time, {@link chargeTimeOf} of its
   *   decision.
   */
  refund?(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    atMs: number,
  ): Decision | Promise<Decision>;

  /**
   * Optional: books the future slot of a request of `cost` units on `key`, atomically, by
   * the algorithm's `reserve` (GCRA: TAT′ = max(TAT, now) + cost·T), when its wait is at
   * most `maxWaitMs`; else books nothing and answers the denial. One call, so requests are
   * served in the order they reached the store, across processes. {@link Store.refund}
   * with the same `cost` gives the slot back. A call that fails or times out must book
   * nothing (or be answered as if it booked, as a late `consume` is charged).
   *
   * @param maxWaitMs - the longest wait to book, ms (a finite number >= 0, checked).
   * @throws `TypeError` for an algorithm without `reserve` (a window: no future slot).
   * @example
   * ```ts
   * const { decision, delayMs } = await store.reserve(key, gcra({ rate: 10, period: '1s' }), 1, Date.now(), 5000);
   * ```
   */
  reserve?(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    maxWaitMs: number,
  ): StoreReservation | Promise<StoreReservation>;

  /**
   * Optional: books the future slots of several requests all-or-nothing, atomically (a
   * request under an array of limits in `mode: 'queue'`): each request's slot is booked by
   * its algorithm's `reserve` exactly as {@link Store.reserve} alone would book it, but only
   * when every one books within `maxWaitMs`; otherwise none is booked, the ones that would
   * book report their peek (a `cost` 0 decision) with their own `cost`, and the others
   * report their denial. The caller waits for the latest slot (the largest `delayMs`) and
   * cancels by {@link Store.refund} of each part with its `cost` (each part's give-back is
   * exact, as a single reservation's). Without it, a limiter cannot queue a request under
   * several limits in this store.
   *
   * @param requests - the requests, in order (answers come back in the same order).
   * @param maxWaitMs - as in {@link Store.reserve}.
   * @throws `TypeError` for an algorithm without `reserve` (a window: no future slot).
   * @example
   * ```ts
   * const parts = await store.reserveAll([{ key: 'user:1', algorithm: perUser, cost: 1 },
   *   { key: 'all', algorithm: global, cost: 1 }], Date.now(), 5000);
   * const delayMs = Math.max(...parts.map((p) => p.delayMs));
   * ```
   */
  reserveAll?(
    requests: readonly StoreRequest[],
    nowMs: number,
    maxWaitMs: number,
  ): StoreReservation[] | Promise<StoreReservation[]>;
}

/** What {@link Store.reserve} answers: the decision and the wait for the booked slot. */
export interface StoreReservation {
  /**
   * The decision: `allowed` when the slot is booked (then charged, as a `consume` charges),
   * else the denial a `consume` would give (nothing booked).
   */
  decision: Decision;
  /** Ms from the store's now until the booked slot (0: at once, or nothing booked). */
  delayMs: number;
}

/** Charge times recorded by {@link recordChargeTime} (stores of other authors). */
const chargeTimes = new WeakMap<Decision, number>();

/**
 * A {@link Decision} that carries when a store keeping its own clock charged it (see
 * {@link withChargeTime}): the same six enumerable fields as any decision, plus a private
 * field that neither `JSON.stringify`, spreading nor deep equality sees.
 */
class ChargedDecision implements Decision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterMs: number;
  resetAfterMs: number;
  cost: number;
  readonly #atMs: number;

  constructor(d: Decision, atMs: number) {
    this.allowed = d.allowed;
    this.limit = d.limit;
    this.remaining = d.remaining;
    this.retryAfterMs = d.retryAfterMs;
    this.resetAfterMs = d.resetAfterMs;
    this.cost = d.cost;
    this.#atMs = atMs;
  }

  static timeOf(decision: Decision): number | undefined {
    return #atMs in decision ? decision.#atMs : undefined;
  }
}

/**
 * `decision` as a decision that records when a store which keeps its own time (RedisStore
 * with `clock: 'server'`) charged it: at `atMs` (ms since the Unix epoch, on the store's
 * clock), so that a later {@link Store.refund} of that charge can name it
 * ({@link chargeTimeOf}). Returns a copy with the same fields; `decision` is unchanged.
 *
 * @example
 * ```ts
 * return withChargeTime(decide(...), redisTimeMs); // in a store's consume
 * ```
 */
export function withChargeTime(decision: Decision, atMs: number): Decision {
  // perf: a private field costs nothing; a WeakMap entry per decision cost ~200 ns and GC work.
  return new ChargedDecision(decision, atMs);
}

/**
 * Records that a store which keeps its own time decided `decision` at `atMs` (ms since the
 * Unix epoch, its clock), as {@link withChargeTime} does, on the decision object itself
 * (kept in a WeakMap: slower; prefer {@link withChargeTime} on a hot path). A store that
 * decides at the `nowMs` it is given records nothing.
 */
export function recordChargeTime(decision: Decision, atMs: number): void {
  chargeTimes.set(decision, atMs);
}

/**
 * When the store charged `decision`, if it keeps its own clock and recorded it (see
 * {@link withChargeTime}, {@link recordChargeTime}); else `undefined`: it was decided at
 * the `nowMs` its caller gave.
 *
 * @example
 * const at = chargeTimeOf(decision) ?? nowMs; // the time to pass to store.refund
 */
export function chargeTimeOf(decision: Decision): number | undefined {
  return ChargedDecision.timeOf(decision) ?? chargeTimes.get(decision);
}

/** One request of {@link Store.consumeAll}. */
export interface StoreRequest {
  /** The key: as `consume` takes it, or, with `prefix`, a key of `scope(prefix)`. */
  key: string;
  /**
   * Optional: the request is on `key` in `scope(prefix)` (see {@link Store.scope}), i.e. on
   * `prefix + key` for a store whose key spaces only prefix keys. Without it, on `key` itself.
   */
  prefix?: string;
  /** Which algorithm and parameters to run. */
  algorithm: Algorithm;
  /** Units asked for: an integer >= 0 (0 = peek), already checked. */
  cost: number;
}

/** The full key of a {@link StoreRequest}: `prefix + key`. */
export function fullKey(request: StoreRequest): string {
  return request.prefix === undefined ? request.key : request.prefix + request.key;
}

/**
 * All-or-nothing from single decisions (the {@link Store.consumeAll} fallback): peeks
 * every request (`decide(i, 0)`), then, only if each fits (`cost <= remaining`), consumes
 * each; otherwise asks the ones that do not fit for their real denial (which charges
 * nothing) and reports the others' peeks with their `cost`. Atomic when `decide` is
 * synchronous (nothing runs in between); with an asynchronous store another caller can
 * slip in between the peek and the consume.
 *
 * @param costs - each request's cost, in order.
 * @param decide - decides request `i` with `cost` (0: a peek).
 */
export function consumeEach(
  costs: readonly number[],
  decide: (i: number, cost: number) => Decision | Promise<Decision>,
): Decision[] | Promise<Decision[]> {
  const finish = (peeks: Decision[]): Decision[] | Promise<Decision[]> => {
    const fits = peeks.every((p, i) => costs[i]! <= p.remaining);
    return collect(
      costs.map((cost, i) =>
        fits || cost > peeks[i]!.remaining ? decide(i, cost) : { ...peeks[i]!, cost },
      ),
    );
  };
  const ready = collect(costs.map((_, i) => decide(i, 0)));
  return ready instanceof Promise ? ready.then(finish) : finish(ready);
}

/** The decisions, as they are when none is a promise, else once all are there. */
function collect(values: (Decision | Promise<Decision>)[]): Decision[] | Promise<Decision[]> {
  return values.some((v) => v instanceof Promise) ? Promise.all(values) : (values as Decision[]);
}

/** The key space of `prefix` in `store`: `store.scope(prefix)`, or a view prefixing each key. */
export function keySpaceView(store: Store, prefix: string): Store {
  if (typeof store.scope === 'function') return store.scope(prefix);
  const view: Store = {
    consume: (key, algorithm, cost, nowMs) => store.consume(prefix + key, algorithm, cost, nowMs),
    reset: (key) => store.reset(prefix + key),
  };
  if (typeof store.refund === 'function') {
    const refund = store.refund;
    view.refund = (key, algorithm, cost, nowMs, atMs) =>
      refund.call(store, prefix + key, algorithm, cost, nowMs, atMs);
  }
  if (typeof store.consumeAtMost === 'function') {
    const atMost = store.consumeAtMost;
    view.consumeAtMost = (key, algorithm, max, nowMs) =>
      atMost.call(store, prefix + key, algorithm, max, nowMs);
  }
  if (typeof store.reserve === 'function') {
    const reserve = store.reserve;
    view.reserve = (key, algorithm, cost, nowMs, maxWaitMs) =>
      reserve.call(store, prefix + key, algorithm, cost, nowMs, maxWaitMs);
  }
  return view;
}

/**
 * Waits for `store` to be ready: its {@link Store.ready} (a rejection names the cause), or
 * at once for a store without it. What adapters call at start-up.
 *
 * @example
 * ```ts
 * app.addHook('onReady', () => storeReady(store));
 * ```
 */
export function storeReady(store: Store): Promise<void> {
  if (typeof store.ready !== 'function') return Promise.resolve();
  try {
    return Promise.resolve(store.ready());
  } catch (error) {
    return Promise.reject(error);
  }
}
