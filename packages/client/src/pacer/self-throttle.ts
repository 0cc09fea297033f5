/** Google SRE's client-side throttling: the window, in ms (2 minutes). */
const SELF_THROTTLE_WINDOW_MS = 120_000;
/** The multiplier K: the client sends up to K times what the server accepts. */
const SELF_THROTTLE_K = 2;
/** Counts are kept in buckets of this many ms (120 buckets over the window). */
const BUCKET_MS = 1000;

interface Bucket {
  /** The bucket's start, a multiple of {@link BUCKET_MS}. */
  start: number;
  requests: number;
  accepts: number;
}

/**
 * The counts of one origin for client-side throttling (Google SRE book, "Handling
 * Overload"): `requests` attempted by the application and `accepts` (answers other than
 * 429 / 503) over the trailing {@link SELF_THROTTLE_WINDOW_MS}; a request is rejected
 * locally with probability max(0, (requests - K·accepts) / (requests + 1)).
 */
export class SelfThrottle {
  private readonly buckets: Bucket[] = [];

  /** The rejection probability now, before counting the request about to be decided. */
  probability(now: number): number {
    const { requests, accepts } = this.counts(now);
    return Math.max(0, (requests - SELF_THROTTLE_K * accepts) / (requests + 1));
  }

  /** `requests` and `accepts` over the trailing window. */
  counts(now: number): { requests: number; accepts: number } {
    this.prune(now);
    let requests = 0;
    let accepts = 0;
    for (const b of this.buckets) {
      requests += b.requests;
      accepts += b.accepts;
    }
    return { requests, accepts };
  }

  /** Counts one request attempted (sent or rejected locally). */
  request(now: number): void {
    this.bucket(now).requests++;
  }

  /** Counts one request the server accepted. */
  accept(now: number): void {
    this.bucket(now).accepts++;
  }

  private bucket(now: number): Bucket {
    const start = Math.floor(now / BUCKET_MS) * BUCKET_MS;
    const last = this.buckets[this.buckets.length - 1];
    if (last !== undefined && last.start >= start) return last;
    const b = { start, requests: 0, accepts: 0 };
    this.buckets.push(b);
    this.prune(now);
    return b;
  }

  /** Drops the buckets wholly outside the window. */
  private prune(now: number): void {
    const from = now - SELF_THROTTLE_WINDOW_MS;
    while (this.buckets.length > 0 && this.buckets[0]!.start + BUCKET_MS <= from) {
      this.buckets.shift();
    }
  }
}
