import { clamp, type WindowSample } from './sample.js';

/**
 * Parameters of {@link gradient2Update}, all validated by `Limit.adaptive` (see
 * `parseAdaptiveOptions`).
 */
export interface Gradient2Params {
  /** The lowest limit: an integer >= 1. */
  min: number;
  /** The highest limit: an integer >= `min`. */
  max: number;
  /**
   * How much slower than the baseline a window may be before the limit shrinks: the limit
   * holds when the window's mean latency is `tolerance` × the baseline. Netflix's
   * `rttTolerance` (their default 1.5; ours 1.1, which holds the p99 near 1.5× the unloaded one).
   */
  tolerance: number;
  /** Requests added on top of the gradient each window (Netflix's `queueSize`, theirs 4). */
  queueSize: number;
  /** Weight of the new value in the limit's moving average, in (0, 1] (Netflix: 0.2). */
  smoothing: number;
  /**
   * How far the baseline moves toward a higher window minimum per window, in [0, 1], when
   * the limit was not what held the requests back (see {@link gradient2Update}).
   */
  drift: number;
}

/** The state of {@link gradient2Update}: a plain value. */
export interface Gradient2State {
  /** The current limit, a real number in `[min, max]` (requests admitted: its floor). */
  limit: number;
  /**
   * The baseline latency (ms): the lowest window minimum seen, drifting up only on
   * unsaturated windows; `undefined` before the first non-empty window.
   */
  baselineMs: number | undefined;
}

/**
 * One window of Netflix concurrency-limits' Gradient2
 * (`com.netflix.concurrency.limits.limit.Gradient2Limit`):
 *
 * ```
 * gradient = clamp(tolerance × baseline / rtt, 0.5, 1)
 * target   = limit × gradient + queueSize
 * limit'   = clamp(limit × (1 − smoothing) + target × smoothing, min, max)
 * ```
 *
 * and, as theirs, no growth while the application uses under half the limit. Where it
 * differs, and why (Envoy adaptive concurrency's bug history):
 *
 * - The baseline is the window **minimum**, taken at once when lower, and allowed to rise
 *   (by `drift`) only on a window the limit did not saturate, or with the limit at `min`
 *   (below `min + 1`).
 *   Netflix's long-term average (and Envoy's re-measured minimum RTT, #11579) ratchets up
 *   under sustained load: each window's queueing becomes the next window's "normal".
 * - There is no probing: the limit is never lowered to measure the baseline, so no burst of
 *   503s every interval (#8337, #18152), and `min` is only a floor (#46532).
 * - An empty window returns the state unchanged (#14997).
 *
 * Pure: `state` is not mutated.
 */
export function gradient2Update(
  params: Gradient2Params,
  state: Gradient2State,
  sample: WindowSample,
): Gradient2State {
  if (sample.count === 0) return state;
  const { limit } = state;
  const saturated = sample.maxInFlight >= Math.floor(limit);
  let baseline = state.baselineMs;
  if (baseline === undefined || sample.minRttMs < baseline) baseline = sample.minRttMs;
  else if (!saturated || Math.floor(limit) <= params.min) {
    baseline += (sample.minRttMs - baseline) * params.drift;
  }
  // App-limited: under half the limit in use says nothing about what more would do.
  if (sample.maxInFlight < limit / 2) return { limit, baselineMs: baseline };
  const rtt = Math.max(sample.rttMs, baseline, Number.MIN_VALUE);
  const gradient = clamp((params.tolerance * baseline) / rtt, 0.5, 1);
  const target = limit * gradient + params.queueSize;
  const next = limit * (1 - params.smoothing) + target * params.smoothing;
  return { limit: clamp(next, params.min, params.max), baselineMs: baseline };
}
