import { type Decision, waitOf } from '../algorithms/decision.js';

// "Most restrictive", written once: which decision a call reports among its limits, on
// every front door (the HTTP verdict, http/verdict/verdict.ts, and the ledger across the
// limiters a request passed; the protocol verdict of GraphQL, ws and tRPC,
// protocol/protocol-verdict.ts). ARCHITECTURE.md's glossary names it.

/**
 * Whether `a` is more restrictive than `b`: a denial beats an admission; of two denials the
 * longer wait, where a request that can never pass (`retryAfterMs` -1: its cost is above the
 * limit's capacity, or an operator's deny) beats any wait; of two admissions the one with
 * fewer units remaining. Ties keep `b` (the earlier limit is reported).
 *
 * @example
 * ```ts
 * moreRestrictive(
 *   { allowed: false, limit: 3, remaining: 3, retryAfterMs: -1, resetAfterMs: 0, cost: 5 },
 *   { allowed: false, limit: 10, remaining: 0, retryAfterMs: 30_000, resetAfterMs: 60_000, cost: 5 },
 * ); // true: "never" beats "retry in 30 s"
 * ```
 */
export function moreRestrictive(a: Decision, b: Decision): boolean {
  if (a.allowed !== b.allowed) return !a.allowed;
  return a.allowed ? a.remaining < b.remaining : waitOf(a) > waitOf(b);
}

/**
 * The index of the most restrictive of `decisions` (by {@link moreRestrictive}; the first
 * of equals): the decision a verdict reports. `decisions` must not be empty.
 */
export function mostRestrictive(decisions: readonly Decision[]): number {
  let reported = 0;
  for (let i = 1; i < decisions.length; i++) {
    if (moreRestrictive(decisions[i]!, decisions[reported]!)) reported = i;
  }
  return reported;
}
