import type { Algorithm } from '../algorithms/algorithm.js';
import { CalendarWindowAlgorithm } from '../algorithms/calendar-window.js';
import { fixedWindow } from '../algorithms/fixed-window.js';
import { gcra } from '../algorithms/gcra.js';
import { PenaltyAlgorithm } from '../algorithms/penalty.js';
import { slidingLog } from '../algorithms/sliding-log.js';
import { slidingWindow } from '../algorithms/sliding-window.js';
import type { Limit } from '../limits/limit.js';

// Apart from override.ts: only RateLimiter needs it, so an HTTP bundle carries no window
// algorithm it does not use.

/**
 * `algorithm` with the quota of `limit` (a `RateLimiter`'s override): the same family,
 * so the same keys and state (GCRA keeps its TAT, windows their count). GCRA takes
 * `rate = burst = maxAttempts` per `periodMs`, as a route's limit does; a window takes
 * `limit` per `window`; a penalty (`blockFor`) keeps its block around the rescaled inner
 * algorithm; a calendar window keeps its calendar and takes `maxAttempts` per period.
 * `undefined` for concurrency and adaptive limits (not rates: `override()` refuses them).
 */
export function rescaled(algorithm: Algorithm, limit: Limit): Algorithm | undefined {
  if (algorithm.concurrent === true) return undefined;
  if (algorithm instanceof PenaltyAlgorithm) {
    const inner = rescaled(algorithm.inner, limit);
    return inner === undefined ? undefined : new PenaltyAlgorithm(inner, algorithm.penalty);
  }
  if (algorithm instanceof CalendarWindowAlgorithm) {
    return new CalendarWindowAlgorithm(limit.maxAttempts, algorithm.period);
  }
  const quota = limit.maxAttempts;
  const period = limit.periodMs;
  switch (algorithm.kind) {
    case 'gcra':
      return gcra({ rate: quota, period, burst: quota });
    case 'fixed-window':
      return fixedWindow({ limit: quota, window: period });
    case 'sliding-window':
      return slidingWindow({ limit: quota, window: period });
    case 'sliding-log':
      return slidingLog({ limit: quota, window: period });
    default:
      return undefined;
  }
}
