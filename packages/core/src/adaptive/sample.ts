/**
 * What one sampling window measured, as {@link gradient2Update} and {@link aimdUpdate} read
 * it. A window with `count` 0 is empty: the updates return their state unchanged (an empty
 * window is no evidence, never a huge RTT: Envoy #14997).
 */
export interface WindowSample {
  /** Requests that finished in the window. */
  count: number;
  /** Their mean latency in **ms** (plus the event-loop delay, when one is measured); 0 when empty. */
  rttMs: number;
  /** The smallest latency among them in **ms**; `Infinity` when empty. */
  minRttMs: number;
  /**
   * The most requests in flight at once during the window, counting those estimated to wait
   * in the event loop (`AdaptiveConcurrency.queued`).
   */
  maxInFlight: number;
  /** Whether a request of the window failed in a way that signals overload (AIMD backs off). */
  dropped: boolean;
}

/** An empty window ({@link WindowSample} with `count` 0). */
export const EMPTY_WINDOW: WindowSample = Object.freeze({
  count: 0,
  rttMs: 0,
  minRttMs: Number.POSITIVE_INFINITY,
  maxInFlight: 0,
  dropped: false,
});

/** `x` within `[lo, hi]`. */
export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
