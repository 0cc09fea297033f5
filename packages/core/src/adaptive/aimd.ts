import { clamp, type WindowSample } from './sample.js';

/** Parameters of {@link aimdUpdate}, validated by `Limit.adaptive`. */
export interface AimdParams {
  /** The lowest limit: an integer >= 1. */
  min: number;
  /** The highest limit: an integer >= `min`. */
  max: number;
  /** Multiplier on a window with a drop or a mean latency over `timeoutMs`, in (0, 1) (Netflix: 0.9). */
  backoffRatio: number;
  /** A window slower than this (mean, **ms**) backs off as a drop does (Netflix: 5 s). */
  timeoutMs: number;
}

/** The state of {@link aimdUpdate}: a plain value. */
export interface AimdState {
  /** The current limit, an integer in `[min, max]`. */
  limit: number;
}

/**
 * One window of Netflix concurrency-limits' AIMD (`AIMDLimit`): a window with a drop or a
 * mean latency over `timeoutMs` multiplies the limit by `backoffRatio` (rounded down);
 * otherwise, when at least half the limit was in use, it grows by one. An empty window
 * returns the state unchanged. Pure.
 */
export function aimdUpdate(params: AimdParams, state: AimdState, sample: WindowSample): AimdState {
  if (sample.count === 0) return state;
  const { limit } = state;
  if (sample.dropped || sample.rttMs > params.timeoutMs) {
    return { limit: clamp(Math.floor(limit * params.backoffRatio), params.min, params.max) };
  }
  if (sample.maxInFlight * 2 >= limit) return { limit: clamp(limit + 1, params.min, params.max) };
  return state;
}
