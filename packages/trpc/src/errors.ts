import type { Decision, ProtocolVerdict } from '@sluice/core';

/**
 * The `cause` of the `TOO_MANY_REQUESTS` `TRPCError` that {@link sluiceTrpc} throws.
 */
export class RateLimitedError extends Error {
  override readonly name = 'RateLimitedError';
  /**
   * Seconds until the same call would be admitted, rounded up, at least 1 (`Retry-After`);
   * `undefined` when waiting will never admit it (its cost exceeds the quota, or an
   * operator's deny): then no `Retry-After` is sent. Never negative.
   */
  readonly retryAfter: number | undefined;
  /** The same in exact **ms**; -1 when the call's cost exceeds the quota. */
  readonly retryAfterMs: number;
  /** The most restrictive limit's decision. */
  readonly decision: Decision;

  constructor(verdict: ProtocolVerdict) {
    const never = verdict.retryAfterSeconds < 0;
    super(
      never
        ? 'Rate limit exceeded: this call costs more than the limit allows, waiting will not admit it'
        : `Rate limit exceeded, retry in ${verdict.retryAfterSeconds} seconds`,
    );
    this.retryAfter = never ? undefined : verdict.retryAfterSeconds;
    this.retryAfterMs = verdict.retryAfterMs;
    this.decision = verdict.decision;
  }
}

/**
 * `retryAfter` (seconds) of a tRPC error whose cause is a {@link RateLimitedError}, else
 * `undefined` (also for one that waiting will not admit: no `Retry-After` for it).
 */
export function retryAfterOf(error: unknown): number | undefined {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof RateLimitedError ? cause.retryAfter : undefined;
}

/**
 * A tRPC `errorFormatter` that adds `retryAfter` (seconds) to the error shape's `data` of a
 * rate-limited call: `initTRPC.create({ errorFormatter: sluiceErrorFormatter })`. To compose
 * with your own formatter, call it on your shape: `sluiceErrorFormatter({ shape: mine, error })`.
 */
export function sluiceErrorFormatter<S extends { data: object }>({
  shape,
  error,
}: {
  shape: S;
  error: unknown;
}): S {
  const retryAfter = retryAfterOf(error);
  return retryAfter === undefined ? shape : { ...shape, data: { ...shape.data, retryAfter } };
}

/**
 * A `responseMeta` for tRPC's HTTP adapters (fetch, standalone, Express, Next…): a
 * rate-limited answer gets `Retry-After` (the longest among a batch's errors).
 * `fetchRequestHandler({ …, responseMeta: sluiceResponseMeta })`.
 */
export function sluiceResponseMeta({ errors }: { errors: readonly unknown[] }): {
  headers?: Record<string, string>;
} {
  let longest: number | undefined;
  for (const e of errors) {
    const s = retryAfterOf(e);
    if (s !== undefined && (longest === undefined || s > longest)) longest = s;
  }
  return longest === undefined ? {} : { headers: { 'Retry-After': String(longest) } };
}
