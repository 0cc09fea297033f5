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
  decision: Decision;
  /** Milliseconds until the written state expires (0 when `state` is undefined). */
  ttlMs: number;
}

/** The algorithm families; each has one Lua twin in @sluice/redis. */
export type AlgorithmKind = 'gcra' | 'fixed-window' | 'sliding-window' | 'sliding-log';

/**
 * A rate-limiting algorithm: a pure state transition (state, cost, now) => (state, decision). Built by the factories
 * `gcra`, `cellThrottle`, `leakyBucket`, `tokenBucket`, `fixedWindow`, `slidingWindow`,
 * `slidingLog`; all values are validated when it is built.
 */
export interface Algorithm {
  /** Which family this is; the Redis store picks its Lua twin by this. */
  readonly kind: AlgorithmKind;
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
   * Decides one request. Pure: it never mutates `state`.
   *
   * @param state - the key's stored state, or `undefined` when there is none.
   * @param nowMs - the time in ms since the Unix epoch.
   * @param cost - units asked for: an integer >= 0 (0 = peek; checked by the caller).
   */
  step(state: State | undefined, nowMs: number, cost: number): StepResult;
}

/** Whether `value` is an {@link Algorithm}: an object with a `step` function. */
export function isAlgorithm(value: unknown): value is Algorithm {
  return (
    value !== null && typeof value === 'object' && typeof (value as Algorithm).step === 'function'
  );
}
