import { describe } from '../common/errors.js';
import type { Algorithm, State, StepResult } from './algorithm.js';

/**
 * Whether `algorithm` can grant part of a request (`RateLimiter.consumeAtMost`): every
 * algorithm but a concurrency limit (`Limit.concurrent`: leases, not a rate) and an adaptive
 * one (`Limit.adaptive`: decided in process, never in a store).
 */
export function grantsPartially(algorithm: Algorithm): boolean {
  const inner = algorithm.inner ?? algorithm;
  return algorithm.concurrent !== true && inner.concurrent !== true && inner.kind !== 'adaptive';
}

/**
 * Grants as many units of `key`'s quota as `algorithm` admits now, up to `max`, in one pure
 * step: `n = min(max, remaining of the peek)` (every algorithm admits a cost iff it is at
 * most its peek's `remaining`), then `step(state, nowMs, n)`. The decision's `cost` is the
 * grant. When nothing fits (`n` = 0) nothing is written and the decision is the denial of
 * one unit with `cost` 0 (`retryAfterMs`: until 1 unit would be admitted), charging
 * nothing; an algorithm with its own `stepAtMost` (a penalty: a grant of 0 is no offence,
 * so it never blocks) decides instead. The Lua (@sluice/redis at-most.lua.ts) and PL/pgSQL
 * (@sluice/postgres) twins decide the same.
 *
 * @param max - the most units to grant: an integer >= 1 (checked by the caller).
 * @example
 * ```ts
 * const r = stepAtMost(fixedWindow({ limit: 10, window: '1m' }), [60_000, 7], 0, 5);
 * r.decision.cost; // 3: the window had 3 units left
 * ```
 */
export function stepAtMost(
  algorithm: Algorithm,
  state: State | undefined,
  nowMs: number,
  max: number,
): StepResult {
  if (typeof algorithm.stepAtMost === 'function') return algorithm.stepAtMost(state, nowMs, max);
  const peek = algorithm.step(state, nowMs, 0).decision;
  const n = Math.min(max, peek.remaining);
  if (n > 0) return algorithm.step(state, nowMs, n);
  const denial = algorithm.step(state, nowMs, 1).decision;
  return { state: undefined, decision: { ...denial, allowed: false, cost: 0 }, ttlMs: 0 };
}

/**
 * The `max` of a `consumeAtMost` call, checked: an integer >= 1.
 * @throws `TypeError` for any other value.
 */
export function checkMax(max: unknown): number {
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1) {
    throw new TypeError(`sluice: max must be an integer >= 1, got ${describe(max)}`);
  }
  return max;
}
