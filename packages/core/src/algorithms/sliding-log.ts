import type { RefundResult, State, StepResult } from './algorithm.js';
import { decide } from './decision.js';
import { WindowAlgorithm } from './window-algorithm.js';
import { parseWindowOptions, type WindowOptions } from './window-options.js';

/**
 * Exact sliding log: one entry per admitted unit of cost, kept while it is inside the
 * window (an entry at time t counts while now - windowMs < t). A request of `cost` is
 * admitted when the live entries plus `cost` are at most `limit`. Denied attempts are not
 * logged. State per key: O(quota).
 *
 * State: `[expiresAt, t1, t2, ..., tn]`, entries ascending; expiresAt = tn + windowMs.
 * Lua twin parameters (`Algorithm.params`): `[quota, windowMs]`.
 */
export class SlidingLogAlgorithm extends WindowAlgorithm {
  readonly kind = 'sliding-log' as const;

  constructor(quota: number, windowMs: number) {
    super('slidingLog', quota, windowMs);
  }

  step(state: State | undefined, nowMs: number, cost: number): StepResult {
    const quota = this.limit;
    const w = this.windowMs;
    // Index in `state` of the first live entry (entries start at index 1).
    let first = 1;
    const log = (state as number[] | undefined) ?? EMPTY;
    if (state !== undefined && log[0]! > nowMs) {
      while (first < log.length && log[first]! <= nowMs - w) first++;
    } else {
      first = log.length;
    }
    const count = log.length - first;
    const last = count > 0 ? log[log.length - 1]! : 0;
    if (count + cost <= quota) {
      if (cost === 0) {
        return {
          state: undefined,
          decision: decide(true, quota, quota - count, 0, count > 0 ? last + w - nowMs : 0, cost),
          ttlMs: 0,
        };
      }
      const next = new Array<number>(1 + count + cost);
      next[0] = nowMs + w;
      for (let i = 0; i < count; i++) next[1 + i] = log[first + i]!;
      for (let i = 0; i < cost; i++) next[1 + count + i] = nowMs;
      return {
        state: next,
        decision: decide(true, quota, quota - count - cost, 0, w, cost),
        ttlMs: w,
      };
    }
    // The (count + cost - quota)-th oldest live entry must leave the window first.
    const retry = cost > quota ? -1 : log[first + count + cost - quota - 1]! + w - nowMs;
    return {
      state: undefined,
      decision: decide(false, quota, quota - count, retry, count > 0 ? last + w - nowMs : 0, cost),
      ttlMs: 0,
    };
  }

  /** A denial tells only its retry time: the counts are not recoverable from it. */
  denialState(): 'retry' {
    return 'retry';
  }

  /**
   * Gives back `cost` units charged at `atMs`: removes up to `cost` entries at exactly
   * `atMs` (the log is then what it would be without the charge; entries already out of the
   * window are gone and give nothing back). A log left empty is deleted. The TS twin of
   * `sliding_log_refund` (@sluice/redis).
   */
  refund(state: State | undefined, nowMs: number, cost: number, atMs: number): RefundResult {
    let next: State | null | undefined;
    let ttlMs = 0;
    const log = state as number[] | undefined;
    if (log !== undefined && log[0]! > nowMs && cost > 0) {
      const kept: number[] = [0];
      let left = cost;
      // The newest matching entries go first (all equal, so which ones does not matter).
      for (let i = log.length - 1; i >= 1; i--) {
        const t = log[i]!;
        if (left > 0 && t === atMs) left--;
        else if (t > nowMs - this.windowMs) kept.push(t);
      }
      if (left < cost) {
        if (kept.length === 1) next = null;
        else {
          kept.shift();
          kept.reverse();
          const expiresAt = kept[kept.length - 1]! + this.windowMs;
          next = [expiresAt, ...kept];
          ttlMs = expiresAt - nowMs;
        }
      }
    }
    const after = next === null ? undefined : (next ?? state);
    return { state: next, decision: this.step(after, nowMs, 0).decision, ttlMs };
  }
}

const EMPTY: number[] = [0];

/**
 * Sliding log: exactly `limit` units in any `window`, one log entry per admitted unit.
 * Costs memory in proportion to `limit`; prefer {@link gcra} for large limits.
 *
 * @throws {@link SluiceConfigError} naming `limit` (integer >= 1) or `window` (> 0).
 */
export function slidingLog(options: WindowOptions): SlidingLogAlgorithm {
  const { limit, windowMs } = parseWindowOptions('slidingLog', options);
  return new SlidingLogAlgorithm(limit, windowMs);
}
