// What parse.ts and the readers it imports (fields.ts, older.ts, providers.ts) share: here, so
// none of them imports parse.ts back.

/**
 * What the parser needs of a response's headers: `Headers`, or anything with `get`.
 *
 * @example
 * ```ts
 * const headers: HeadersLike = { get: (name) => (name === 'retry-after' ? '5' : null) };
 * parseRateLimitHeaders(headers, Date.now()).retryAt; // now + 5000
 * ```
 */
export interface HeadersLike {
  /** The field's value (several fields of one name joined by `, `), or `null` when absent. */
  get(name: string): string | null;
}

/**
 * One policy as one response describes it: what {@link parseRateLimitHeaders} returns per
 * policy. Times are absolute, in **ms** on the caller's clock.
 *
 * @example
 * ```ts
 * // RateLimit-Policy: "burst";q=100;w=60 and RateLimit: "burst";r=0;t=12, read at `now`:
 * const policy: ObservedPolicy = {
 *   id: 'burst', name: 'burst', partitionKey: undefined, quota: 100, windowSeconds: 60,
 *   concurrent: false, tokens: false, remaining: 0, resetAt: now + 12_000, cost: undefined,
 * };
 * ```
 */
export interface ObservedPolicy {
  /**
   * The policy's identity within its origin: the draft-8+ name and partition key (`pk`),
   * the GitHub-style `X-RateLimit-Resource`, or, for the unnamed policy of legacy and
   * draft-6/7 headers, its quota (`~10`).
   */
  id: string;
  /** The name the server gave it (draft-8+, `X-RateLimit-Resource`), else `undefined`. */
  name: string | undefined;
  /** The partition key (`pk`), base64, when the server sent one. */
  partitionKey: string | undefined;
  /** The quota (`q`, `X-RateLimit-Limit`, draft-6/7 `limit`), when known. */
  quota: number | undefined;
  /** The time window (`w`), in **seconds**, when known. */
  windowSeconds: number | undefined;
  /** A concurrency policy (`qu="concurrent-requests"`): `quota` requests in flight at most. */
  concurrent: boolean;
  /**
   * A policy in tokens, not requests (OpenAI's `x-ratelimit-*-tokens`, Anthropic's
   * `anthropic-ratelimit-{tokens,input-tokens,output-tokens}-*`): paced only with
   * `pacedFetch`'s `estimate`, each request counting the tokens it estimates.
   */
  tokens: boolean;
  /**
   * The available quota after this request (`r`, or `a` of the next draft revision,
   * `X-RateLimit-Remaining`…), when sent.
   */
  remaining: number | undefined;
  /**
   * When the quota is back (`t`, or `w` in the `RateLimit` field of the next draft revision,
   * from now; `X-RateLimit-Reset` as an epoch or a delta; a provider's reset), in ms on the
   * caller's clock, when sent.
   */
  resetAt: number | undefined;
  /**
   * The units this request cost (`c` of the next draft revision), when sent: the client
   * counts that many for each later request to the same route.
   */
  cost: number | undefined;
}
