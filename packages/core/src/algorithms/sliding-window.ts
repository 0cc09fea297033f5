import type { RefundResult, State, StepResult } from './algorithm.js';
import { decide } from './decision.js';
import { WindowAlgorithm } from './window-algorithm.js';
import { parseWindowOptions, type WindowOptions } from './window-options.js';

/**
 * Sliding window counter (as in Cloudflare's and redis-rate-limiting designs): windows are
 * aligned to multiples of `windowMs` since the Unix epoch, and the count at time t is
 * `previous x (windowMs - elapsed) / windowMs + current`, where `elapsed` is t minus the
 * current window's start. A request of `cost` is admitted when that estimate plus `cost`
 * is at most `limit`. All comparisons are done on integers scaled by `windowMs`, so they
 * are exact.
 *
 * State: `[expiresAt, currentWindowStart, previousCount, currentCount]`.
 * Lua twin parameters (`Algorithm.params`): `[quota, windowMs]`.
 */
export class SlidingWindowAlgorithm extends WindowAlgorithm {
  readonly kind = 'sliding-window' as const;

  constructor(quota: number, windowMs: number) {
    super('slidingWindow', quota, windowMs);
  }

  step(state: State | undefined, nowMs: number, cost: number): StepResult {
    const quota = this.limit;
    const w = this.windowMs;
    const start = Math.floor(nowMs / w) * w;
    const elapsed = nowMs - start;
    let prev = 0;
    let curr = 0;
    if (state !== undefined && (state as number[])[0]! > nowMs) {
      const s = state as number[];
      if (s[1] === start) {
        prev = s[2]!;
        curr = s[3]!;
      } else if (s[1] === start - w) {
        prev = s[3]!;
      }
    }
    const weight = w - elapsed; // previous window's weight, times w
    const used = prev * weight + curr * w; // the estimate, times w
    if (used + cost * w <= quota * w) {
      const after = used + cost * w;
      const remaining = Math.floor((quota * w - after) / w);
      if (cost === 0) {
        return {
          state: undefined,
          decision: decide(
            true,
            quota,
            remaining,
            0,
            resetAfter(prev, curr, start, w, nowMs),
            cost,
          ),
          ttlMs: 0,
        };
      }
      curr += cost;
      const expiresAt = start + 2 * w;
      const ttlMs = expiresAt - nowMs;
      return {
        state: [expiresAt, start, prev, curr],
        decision: decide(true, quota, remaining, 0, ttlMs, cost),
        ttlMs,
      };
    }
    let retry: number;
    if (cost > quota) retry = -1;
    else if (prev > 0 && curr + cost <= quota) {
      // Within this window, once prev x (w - e) + (curr + cost) x w <= quota x w.
      // e* - elapsed = (prev x weight - (quota - curr - cost) x w) / prev, one exact division.
      retry = (prev * weight - (quota - curr - cost) * w) / prev;
    } else {
      // In the next window the current count becomes the previous one:
      // curr x (w - e') + cost x w <= quota x w, so e' = w - (quota - cost) x w / curr.
      const toNext = start + w - nowMs;
      // One exact division of integers (toNext + (curr x w - (quota - cost) x w) / curr).
      retry =
        curr + cost <= quota ? toNext : (toNext * curr + curr * w - (quota - cost) * w) / curr;
    }
    const remaining = Math.max(0, Math.floor((quota * w - used) / w));
    return {
      state: undefined,
      decision: decide(
        false,
        quota,
        remaining,
        retry,
        resetAfter(prev, curr, start, w, nowMs),
        cost,
      ),
      ttlMs: 0,
    };
  }

  /** A denial tells only its retry time: the counts are not recoverable from it. */
  denialState(): 'retry' {
    return 'retry';
  }

  /** Gives back `cost` units charged at `atMs` (see `refundWindow` in sliding-window.ts). */
  refund(state: State | undefined, nowMs: number, cost: number, atMs: number): RefundResult {
    return refundWindow(this, state, nowMs, cost, atMs);
  }
}

/**
 * {@link SlidingWindowAlgorithm.refund}: gives back `cost` units charged at `atMs` from the
 * current count while the window of `atMs` is current, from the previous count once the
 * next window has started (exact either way, at least to 0); nothing later. A key left with
 * both counts 0 is deleted. The TS twin of `sliding_window_refund` (@sluice/redis).
 */
function refundWindow(
  algorithm: SlidingWindowAlgorithm,
  state: State | undefined,
  nowMs: number,
  cost: number,
  atMs: number,
): RefundResult {
  const w = algorithm.windowMs;
  const start = Math.floor(atMs / w) * w;
  let next: State | null | undefined;
  let ttlMs = 0;
  const s = state as number[] | undefined;
  if (s !== undefined && s[0]! > nowMs) {
    let prev = s[2]!;
    let curr = s[3]!;
    let found = true;
    if (s[1] === start) curr = Math.max(0, curr - cost);
    else if (s[1] === start + w) prev = Math.max(0, prev - cost);
    else found = false;
    if (found) {
      if (prev === 0 && curr === 0) next = null;
      else {
        next = [s[0]!, s[1]!, prev, curr];
        ttlMs = s[0]! - nowMs;
      }
    }
  }
  const after = next === null ? undefined : (next ?? state);
  return { state: next, decision: algorithm.step(after, nowMs, 0).decision, ttlMs };
}

function resetAfter(prev: number, curr: number, start: number, w: number, nowMs: number): number {
  if (curr > 0) return start + 2 * w - nowMs;
  if (prev > 0) return start + w - nowMs;
  return 0;
}

/**
 * Sliding window counter: `limit` units per `window`, the previous window weighted by its
 * overlap with the sliding window plus the current window. State per key: two counters.
 *
 * @throws {@link SluiceConfigError} naming `limit` (integer >= 1) or `window` (> 0).
 */
export function slidingWindow(options: WindowOptions): SlidingWindowAlgorithm {
  const { limit, windowMs } = parseWindowOptions('slidingWindow', options);
  return new SlidingWindowAlgorithm(limit, windowMs);
}
