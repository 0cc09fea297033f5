import type { Decision } from './decision.js';

/**
 * The state an algorithm keeps per key. Every state carries its own expiry so a store can
 * drop it without knowing the algorithm:
 *
 * - a `number` is a single-number state whose value **is** its expiry in ms since the
 *   Unix epoch (GCRA's theoretical arrival time, TAT);
 * - a `number[]` holds its expiry in ms since the Unix epoch at index 0, and the
 *   algorithm's data after it.
 *
 * A state whose expiry is <= now is equivalent to no state at all.
 */
export type State = number | number[];

/** Expiry of a {@link State} in ms since the Unix epoch (see {@link State}). */
export function expiryOf(state: State): number {
  return typeof state === 'number' ? state : (state[0] as number);
}

/** The result of one {@link Algorithm.step}. */
export interface StepResult {
  /**
   * The state to store. `undefined` when nothing is to be written (a denial, a peek, or a
   * request that left no trace): the store keeps what it had.
   */
  state: State | undefined;
  /** What the request gets. */
  decision: Decision;
  /** Milliseconds until the written state expires (0 when `state` is undefined). */
  ttlMs: number;
}

/**
 * The result of one {@link Algorithm.refund}: what to store, and the key's peek afterwards.
 */
export interface RefundResult {
  /**
   * The state to store; `null`: delete the key (nothing left charged); `undefined`: leave
   * the stored state as it is (nothing was given back).
   */
  state: State | null | undefined;
  /** The key's peek (a cost 0 decision) after the give-back, with `cost` 0. */
  decision: Decision;
  /** Milliseconds until the written state expires (0 unless `state` is a {@link State}). */
  ttlMs: number;
}

/**
 * The result of one {@link Algorithm.reserve}: a {@link StepResult} whose admission may lie
 * in the future, `delayMs` from now.
 */
export interface ReserveResult extends StepResult {
  /**
   * Ms from now until the booked slot conforms (0: at once), exact (may carry a fraction).
   * 0 when nothing was booked (`decision.allowed` false).
   */
  delayMs: number;
}

/**
 * The algorithms that enforce a quota per period, as the HTTP `algorithm` option names them;
 * each has one Lua twin in @sluice/redis.
 */
export type AlgorithmKind = 'gcra' | 'fixed-window' | 'sliding-window' | 'sliding-log';

/**
 * Every algorithm family (`Algorithm.kind`): the {@link AlgorithmKind}s and the calendar
 * window of calendar quotas (`Limit.perCalendarDay`…), which no `algorithm` option picks,
 * and `'adaptive'` (`Limit.adaptive`: per process, decided in process, never in a store).
 * Each but `'adaptive'` has one Lua twin in @sluice/redis.
 */
export type AlgorithmFamily = AlgorithmKind | 'calendar-window' | 'adaptive';

/**
 * A rate-limiting algorithm: a pure state transition (state, cost, now) => (state, decision). Built by the factories
 * `gcra`, `cellThrottle`, `leakyBucket`, `tokenBucket`, `fixedWindow`, `slidingWindow`,
 * `slidingLog`; all values are validated when it is built.
 */
export interface Algorithm {
  /** Which family this is; the Redis store picks its Lua twin by this. */
  readonly kind: AlgorithmFamily;
  /** The quota reported as `Decision.limit` (burst capacity or window limit). */
  readonly limit: number;
  /**
   * The numeric parameters the Lua twin needs, in a fixed order per kind (documented on
   * each factory). Integers only, so they cross to Redis exactly.
   */
  readonly params: readonly number[];
  /** A short human-readable description, e.g. `gcra(60 per 60000 ms, burst 60)`. */
  readonly description: string;
  /**
   * Optional: `true` for a concurrency limit (`Limit.concurrent`): it counts leases of
   * requests in flight, given back when they end, so a denial can end at any moment (a
   * release in another process) and is never cached (over-limit cache), and HTTP answers
   * it with `Retry-After: 1`. Default: a limit on requests per time.
   */
  readonly concurrent?: boolean;
  /**
   * Optional: `true` when `refund` takes a negative cost as a charge past the quota (a debt
   * the key works off before its next admission), as `Limit.costAfter` settles a response
   * that used more than its reserve. GCRA (and its leaky and token bucket forms), the fixed
   * window and the calendar window have it, with their Lua twins.
   */
  readonly debt?: boolean;
  /**
   * Optional: the inner algorithm of a `PenaltyAlgorithm` (`Limit.blockFor`): the Redis
   * store runs the penalty twin of `inner`'s Lua twin for it.
   */
  readonly inner?: Algorithm;
  /**
   * Optional: this algorithm with its Lua parameters for time `nowMs`, for an algorithm whose
   * parameters depend on the time (a calendar quota's edges): a store that runs the Lua twin
   * calls it with its caller's time and sends the result's `params`. Default: the algorithm
   * itself.
   */
  at?(nowMs: number): Algorithm;
  /**
   * Decides one request. Pure: it never mutates `state`.
   *
   * @param state - the key's stored state, or `undefined` when there is none.
   * @param nowMs - the time in ms since the Unix epoch.
   * @param cost - units asked for: an integer >= 0 (0 = peek; checked by the caller).
   */
  step(state: State | undefined, nowMs: number, cost: number): StepResult;
  /**
   * Optional: gives back `cost` units that a `step` admitted at `atMs` (its `nowMs`), the
   * exact inverse of that charge as far as the state allows (see each algorithm), never
   * more than the charge took and never above full capacity. Pure, like `step`. The
   * built-in algorithms have it, each the TS twin of its Lua `<name>_refund` in
   * @sluice/redis; a store refunds through it (`Store.refund`).
   *
   * @param state - the key's stored state, or `undefined` when there is none.
   * @param nowMs - the time of the give-back, ms since the Unix epoch.
   * @param cost - units to give back: an integer >= 0 (checked by the caller).
   * @param atMs - the time the charge was decided at, ms since the Unix epoch.
   */
  refund?(state: State | undefined, nowMs: number, cost: number, atMs: number): RefundResult;
  /**
   * Optional: books a request's future slot (a reservation): admits `cost` units that
   * conform within `maxWaitMs` from now, writing the state as if they were taken at their
   * slot, and answers how long the caller must wait for it. Only an algorithm with a future
   * slot has it: GCRA (and its leaky and token bucket forms), TAT′ = max(TAT, now) + cost·T,
   * conforming at TAT′ − τ; a window has no future slot. Pure, like `step`; its inverse is
   * `refund` with the same `cost` (exact while the key stays backlogged, as a booked key is
   * until its slot). Nothing is booked when the wait would pass `maxWaitMs` or `cost` can
   * never fit; the decision is then the denial `step` would give.
   *
   * @param maxWaitMs - the longest wait to book, ms: a number >= 0 (checked by the
   *   caller); 0 books only what `step` would admit now.
   */
  reserve?(state: State | undefined, nowMs: number, cost: number, maxWaitMs: number): ReserveResult;
  /**
   * Optional: grants as many units as the algorithm admits now, up to `max` (an integer
   * >= 1, checked by the caller), for an algorithm whose grant is not the generic one of
   * `stepAtMost` in at-most.ts (the peek's `remaining`, then a step of that many; none: the
   * one-unit denial with `cost` 0, nothing written). A penalty has it: a grant of 0 is no
   * offence, so it never blocks. Pure, like `step`; the decision's `cost` is the grant.
   */
  stepAtMost?(state: State | undefined, nowMs: number, max: number): StepResult;
  /**
   * Optional, for the over-limit cache of a store that can fail: what a denial decided at
   * `atMs` tells about its key. A {@link State} the cache can step from until it expires;
   * `'retry'` when only the denial's retry time is known (the sliding window and log:
   * their state is not recoverable from a decision); `'blocked'` when the key is blocked
   * until the denial's retry time whatever it asks (a penalty's block); `undefined` (or no
   * method) when a denial is not worth remembering. Pure.
   */
  denialState?(decision: Decision, atMs: number): State | 'retry' | 'blocked' | undefined;
}

/** Whether `value` is an {@link Algorithm}: an object with a `step` function. */
export function isAlgorithm(value: unknown): value is Algorithm {
  return (
    value !== null && typeof value === 'object' && typeof (value as Algorithm).step === 'function'
  );
}
