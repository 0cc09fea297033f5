/**
 * The verdict on one request, as every algorithm and store returns it.
 * A plain object: no methods, safe to serialise.
 */
export interface Decision {
  /** Whether the request is admitted. A denied request consumes nothing. */
  allowed: boolean;
  /**
   * The quota reported as `X-RateLimit-Limit`: the window limit, or the burst capacity
   * for GCRA / leaky bucket / token bucket (redis-cell's `max_burst + 1`).
   */
  limit: number;
  /** Units left after this request: an integer >= 0. */
  remaining: number;
  /**
   * Milliseconds until the same request would be allowed: 0 when allowed, -1 when it can
   * never be (cost > limit). Exact: carries a fraction when the emission interval is not a
   * whole number of ms, so a client that waits this long is never early.
   */
  retryAfterMs: number;
  /** Milliseconds until the key is back to full capacity (`remaining == limit`). Exact. */
  resetAfterMs: number;
  /** Units this request asked for (default 1; 0 = peek). */
  cost: number;
}

/**
 * redis-cell's `CL.THROTTLE` reply for a decision:
 * `[limited, limit, remaining, retry_after_s, reset_after_s]`.
 */
export type CellReply = [
  limited: 0 | 1,
  limit: number,
  remaining: number,
  retryAfterS: number,
  resetAfterS: number,
];

/**
 * Converts a {@link Decision} into redis-cell's `CL.THROTTLE` 5-tuple with redis-cell's
 * rounding: each time is truncated to whole ms, then to whole seconds, plus one if any ms
 * remain; `retry_after` is -1 when allowed or when the request can never succeed.
 *
 * Source of semantics: redis-cell `CL.THROTTLE` (brandur/redis-cell).
 */
export function toCellReply(decision: Decision): CellReply {
  return [
    decision.allowed ? 0 : 1,
    decision.limit,
    decision.remaining,
    decision.allowed ? -1 : cellSeconds(decision.retryAfterMs),
    cellSeconds(decision.resetAfterMs),
  ];
}

function cellSeconds(ms: number): number {
  if (ms < 0) return -1;
  const wholeMs = Math.trunc(ms);
  const seconds = Math.trunc(wholeMs / 1000);
  return wholeMs % 1000 === 0 ? seconds : seconds + 1;
}

/**
 * The wait a decision asks for, for comparing denials: `retryAfterMs`, or `Infinity` for a
 * request that can never be admitted (`retryAfterMs` -1: its cost is above the capacity),
 * which is the most restrictive denial of all.
 *
 * @example
 * waitOf({ allowed: false, retryAfterMs: -1, … }); // Infinity
 */
export function waitOf(decision: Decision): number {
  return decision.retryAfterMs < 0 ? Number.POSITIVE_INFINITY : decision.retryAfterMs;
}

/** Builds a {@link Decision} (internal helper shared by the algorithms). */
// biome-ignore lint/complexity/useMaxParams: perf: every decision builds one; positional, no options object per call
export function decide(
  allowed: boolean,
  quota: number,
  remaining: number,
  retryAfterMs: number,
  resetAfterMs: number,
  cost: number,
): Decision {
  return { allowed, limit: quota, remaining, retryAfterMs, resetAfterMs, cost };
}
