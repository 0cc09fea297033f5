import type { RefundResult, State, StepResult } from './algorithm.js';
import type { Decision } from './decision.js';
import { decide } from './decision.js';
import { WindowAlgorithm } from './window-algorithm.js';
import { parseWindowOptions, type WindowOptions } from './window-options.js';

/**
 * Fixed window counter. The window starts at the key's first admitted hit and lasts
 * `windowMs`; up to `limit` units are admitted in it (Laravel's `throttle`,
 * express-rate-limit). A denied request does not start or extend a window.
 *
 * State: `[windowEnd, count]` (windowEnd in ms since the Unix epoch; it is the expiry).
 * Lua twin parameters (`Algorithm.params`): `[quota, windowMs]`.
 */
export class FixedWindowAlgorithm extends WindowAlgorithm {
  readonly kind = 'fixed-window' as const;
  /** Its `refund` takes a negative cost: a charge past the quota (see `Algorithm.debt`). */
  readonly debt = true;

  constructor(quota: number, windowMs: number) {
    super('fixedWindow', quota, windowMs);
  }

  step(state: State | undefined, nowMs: number, cost: number): StepResult {
    const quota = this.limit;
    let end = nowMs;
    let count = 0;
    if (state !== undefined && (state as number[])[0]! > nowMs) {
      end = (state as number[])[0]!;
      count = (state as number[])[1]!;
    }
    if (count + cost <= quota) {
      if (cost === 0) {
        return {
          state: undefined,
          decision: decide(true, quota, quota - count, 0, end - nowMs, cost),
          ttlMs: 0,
        };
      }
      if (count === 0) end = nowMs + this.windowMs;
      count += cost;
      const ttlMs = end - nowMs;
      return {
        state: [end, count],
        decision: decide(true, quota, quota - count, 0, ttlMs, cost),
        ttlMs,
      };
    }
    const retry = cost > quota ? -1 : end - nowMs;
    return {
      state: undefined,
      decision: decide(false, quota, Math.max(0, quota - count), retry, end - nowMs, cost),
      ttlMs: 0,
    };
  }

  /** A denial tells the window's end and its count. */
  denialState(decision: Decision, atMs: number): State {
    return [atMs + decision.resetAfterMs, this.limit - decision.remaining];
  }

  /**
   * Gives back `cost` units charged at `atMs`: only from the window that held `atMs`
   * (`end - windowMs <= atMs < end`) while it is still current; its count drops by `cost`
   * (at least to 0, then the key is deleted). A charge whose window is over gave its units
   * back already. A negative `cost` charges `-cost` units past the quota into the current
   * window (a debt, `Limit.costAfter`). The TS twin of `fixed_window_refund` (@sluice/redis).
   */
  refund(state: State | undefined, nowMs: number, cost: number, atMs: number): RefundResult {
    let next: State | null | undefined;
    let ttlMs = 0;
    const s = state as number[] | undefined;
    if (cost < 0) {
      // A charge past the limit (a debt, `Limit.costAfter`): into the current window, opening
      // one as a decision does.
      const live = s !== undefined && s[0]! > nowMs;
      const end = live ? s[0]! : nowMs + this.windowMs;
      next = [end, (live ? s[1]! : 0) - cost];
      ttlMs = end - nowMs;
    } else if (s !== undefined && s[0]! > nowMs && s[0]! - this.windowMs <= atMs && atMs < s[0]!) {
      const count = s[1]! - cost;
      if (count <= 0) next = null;
      else {
        next = [s[0]!, count];
        ttlMs = s[0]! - nowMs;
      }
    }
    const after = next === null ? undefined : (next ?? state);
    return { state: next, decision: this.step(after, nowMs, 0).decision, ttlMs };
  }
}

/**
 * Fixed window: `limit` units per `window`, the window starting at the key's first
 * admitted hit (Laravel `throttle`, express-rate-limit). State per key: a counter and the
 * window's end.
 *
 * @throws {@link SluiceConfigError} naming `limit` (integer >= 1) or `window` (> 0).
 */
export function fixedWindow(options: WindowOptions): FixedWindowAlgorithm {
  const { limit, windowMs } = parseWindowOptions('fixedWindow', options);
  return new FixedWindowAlgorithm(limit, windowMs);
}
