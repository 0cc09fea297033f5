import type { Decision } from '../algorithms/decision.js';
import { brandClass } from '../common/process-global.js';

/**
 * What a front door that throws (`@sluice/trpc`'s middleware, as the `cause` of its
 * `TOO_MANY_REQUESTS` `TRPCError`) throws when a limit refused the work: the server side
 * said no. It carries the most restrictive limit's decision and when to retry. One class for
 * every front door, exported by `@sluice/core` (and re-exported by `@sluice/trpc`);
 * `instanceof` holds across the ESM and CommonJS builds. The calling side's "would wait past
 * `maxWait`" is another error: `@sluice/client`'s `WaitTooLongError`.
 *
 * The message says when to retry, never the key, the user or the limit's name.
 *
 * @example
 * ```ts
 * import { RateLimitedError } from '@sluice/core';
 *
 * const error = new RateLimitedError({
 *   decision: { allowed: false, limit: 10, remaining: 0, retryAfterMs: 1500, resetAfterMs: 1500, cost: 1 },
 * });
 * error.retryAfter; // 2 (seconds, rounded up)
 * error.retryAfterMs; // 1500
 * ```
 */
export class RateLimitedError extends Error {
  /**
   * Seconds until the same work would be admitted, rounded up, at least 1 (`Retry-After`);
   * `undefined` when waiting will never admit it (its cost exceeds the limit's capacity, or
   * an operator's deny): then no `Retry-After` is sent. Never negative.
   */
  readonly retryAfter: number | undefined;
  /** The same in exact **ms**; -1 when waiting will never admit it. */
  readonly retryAfterMs: number;
  /** The most restrictive limit's decision (the one that refused). */
  readonly decision: Decision;
  /** Every limit's decision, in the order the limits were given (`[decision]` when not given). */
  readonly decisions: readonly Decision[];

  /**
   * @param verdict - what refused: the most restrictive `decision` (its `retryAfterMs`, in
   *   ms, -1 for never, is the error's) and, optionally, every limit's `decisions`. A
   *   `ProtocolVerdict` fits.
   */
  constructor(verdict: { readonly decision: Decision; readonly decisions?: readonly Decision[] }) {
    const { decision } = verdict;
    const never = decision.retryAfterMs < 0;
    const seconds = never ? undefined : Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    super(
      seconds === undefined
        ? 'Rate limit exceeded: this call costs more than the limit allows, waiting will not admit it'
        : `Rate limit exceeded, retry in ${seconds} seconds`,
    );
    this.name = 'RateLimitedError';
    this.retryAfter = seconds;
    this.retryAfterMs = never ? -1 : decision.retryAfterMs;
    this.decision = decision;
    this.decisions = verdict.decisions ?? [decision];
  }
}
brandClass(RateLimitedError, 'RateLimitedError');
