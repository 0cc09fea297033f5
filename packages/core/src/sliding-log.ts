import type { State, StepResult } from './algorithm.js';
import { decide } from './decision.js';
import { WindowAlgorithm } from './window-algorithm.js';
import { parseWindowOptions, type WindowOptions } from './window-options.js';

/**
 * Exact sliding log: one entry per admitted unit of cost, kept while it is inside the
 * window (an entry at time t counts while now - windowMs < t). A request of `cost` is
 * admitted when the live entries plus `cost` are at most `limit`. Denied attempts are not
 * logged. State per key: O(limit).
 *
 * State: `[expiresAt, t1, t2, ..., tn]`, entries ascending; expiresAt = tn + windowMs.
 * Lua twin parameters (`Algorithm.params`): `[limit, windowMs]`.
 */
export class SlidingLogAlgorithm extends WindowAlgorithm {
  readonly kind = 'sliding-log' as const;

  constructor(limit: number, windowMs: number) {
    super('slidingLog', limit, windowMs);
  }

  step(state: State | undefined, nowMs: number, cost: number): StepResult {
    const limit = this.limit;
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
    if (count + cost <= limit) {
      if (cost === 0) {
        return {
          state: undefined,
          decision: decide(true, limit, limit - count, 0, count > 0 ? last + w - nowMs : 0, cost),
          ttlMs: 0,
        };
      }
      const next = new Array<number>(1 + count + cost);
      next[0] = nowMs + w;
      for (let i = 0; i < count; i++) next[1 + i] = log[first + i]!;
      for (let i = 0; i < cost; i++) next[1 + count + i] = nowMs;
      return {
        state: next,
        decision: decide(true, limit, limit - count - cost, 0, w, cost),
        ttlMs: w,
      };
    }
    // The (count + cost - limit)-th oldest live entry must leave the window first.
    const retry = cost > limit ? -1 : log[first + count + cost - limit - 1]! + w - nowMs;
    return {
      state: undefined,
      decision: decide(false, limit, limit - count, retry, count > 0 ? last + w - nowMs : 0, cost),
      ttlMs: 0,
    };
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
