import { RateLimitedError } from '@sluice/core';

/**
 * The `cause` of the `TOO_MANY_REQUESTS` `TRPCError` that {@link sluiceTrpc} throws: the one
 * `RateLimitedError` of `@sluice/core`, re-exported here (`retryAfter` in seconds, undefined
 * for never; `retryAfterMs`, -1 for never; the most restrictive `decision`).
 */
export { RateLimitedError };

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
