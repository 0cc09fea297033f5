import { type Duration, parseWholeMs } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { integerAtLeast } from '../common/validate.js';
import { SlidingLogAlgorithm } from './sliding-log.js';

/** Default lease time of a concurrency limit: 60 s. */
export const DEFAULT_LEASE_MS = 60_000;

/** Options of {@link concurrency} and `Limit.concurrent`. */
export interface ConcurrencyOptions {
  /** Requests in flight at once per key: an integer >= 1. */
  limit: number;
  /**
   * How long a lease lives when nobody releases it (a crashed process): **ms** or a
   * duration string. Default 60 s. Longer than the slowest request should take.
   */
  leaseMs?: Duration;
}

/**
 * A concurrency limit (Stripe's concurrency limiter, GitHub's concurrent
 * requests): at most `limit` leases per key at once. A lease is one unit taken when a
 * request starts (`step` with cost 1, as a sliding log entry at that time) and given back
 * when it ends (`refund` at that time, which removes exactly that entry); a lease nobody
 * gives back (its process crashed) drops out by itself `leaseMs` after it was taken. So the
 * state, the decisions and the Lua twin are the sliding log's with window `leaseMs`:
 * `retryAfterMs` of a denial is when the oldest lease would expire by itself (an upper
 * bound: a release comes sooner), and HTTP answers `Retry-After: 1` for it.
 *
 * Lua twin: the sliding log's (kind `'sliding-log'`), params `[quota, leaseMs]`.
 */
export class ConcurrencyAlgorithm extends SlidingLogAlgorithm {
  /** Marks a concurrency limit: its denials are never cached, its leases given back when a request ends. */
  readonly concurrent = true;
  /** The lease time in whole **ms**. */
  readonly leaseMs: number;

  constructor(quota: number, leaseMs: number) {
    super(quota, leaseMs);
    this.leaseMs = leaseMs;
    (this as { description: string }).description =
      `concurrency(${quota} in flight, leases of ${leaseMs} ms)`;
  }
}

/**
 * At most `limit` requests in flight per key, each lease expiring after `leaseMs` (see
 * {@link ConcurrencyAlgorithm}). Take a lease with `limiter.consume(key)` and release it with
 * `limiter.refund(key, { charge, atMs })`.
 *
 * @throws {@link SluiceConfigError} naming `limit` (integer >= 1) or `leaseMs` (>= 1 ms).
 * @example
 * const leases = new RateLimiter({ algorithm: concurrency({ limit: 2, leaseMs: '30s' }) });
 */
export function concurrency(options: ConcurrencyOptions): ConcurrencyAlgorithm {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an object { limit, leaseMs? }');
  }
  const limit = integerAtLeast('limit', options.limit, 1);
  const leaseMs = parseWholeMs('leaseMs', options.leaseMs ?? DEFAULT_LEASE_MS);
  if (leaseMs < 1) throw new SluiceConfigError('leaseMs', options.leaseMs, 'at least 1 ms');
  return new ConcurrencyAlgorithm(limit, leaseMs);
}
