import type { Decision } from '../../algorithms/decision.js';

/**
 * Which rate-limit headers to send:
 * - `'legacy'` (default): `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`
 *   (Unix epoch **seconds**, rounded up, when the key is back to full), as GitHub, Laravel
 *   and express-rate-limit's `legacyHeaders` send them;
 * - `'draft-6'`: `RateLimit-Policy`, `RateLimit-Limit`, `RateLimit-Remaining`,
 *   `RateLimit-Reset` (delta seconds), IETF draft-ietf-httpapi-ratelimit-headers-06;
 * - `'draft-7'`: `RateLimit-Policy` and `RateLimit: limit=…, remaining=…, reset=…`, draft-07;
 * - `'draft-8'`: `RateLimit-Policy: "name";q=…;w=…` and `RateLimit: "name";r=…;t=…`, one
 *   list member per limit, draft-ietf-httpapi-ratelimit-headers-08.
 * With several limits, legacy, draft-6 and draft-7 report the most restrictive one.
 */
export type HeaderStyle = 'legacy' | 'draft-6' | 'draft-7' | 'draft-8';

/**
 * A header style as the `headers` option names it: a {@link HeaderStyle}, or `'draft-9'`,
 * `'draft-10'`, `'draft-11'`, which kept draft-8's syntax (`RateLimit-Policy:
 * "name";q=…;w=…`, `RateLimit: "name";r=…;t=…`; checked against the examples of
 * draft-ietf-httpapi-ratelimit-headers-11) and are sent as `'draft-8'`.
 */
export type HeaderStyleName = HeaderStyle | 'draft-9' | 'draft-10' | 'draft-11';

/** The `headers` option: one style, several, or `false` for none. */
export type HeadersOption = HeaderStyleName | readonly HeaderStyleName[] | false;

/** What the headers say about one limit's policy. */
export interface LimitPolicy {
  /** The policy name used by draft-8 (the limit's name). */
  name: string;
  /** The policy window in **seconds** (`w=`), rounded up. */
  windowSeconds: number;
  /**
   * A concurrency limit (`Limit.concurrent`): draft-8 describes it with
   * `qu="concurrent-requests"` and no window.
   */
  concurrent?: boolean;
  /** An adaptive limit (`Limit.adaptive`, also `concurrent`): a denial is a 503, not a 429. */
  adaptive?: boolean;
  /** The quota's unit for draft-8 (`qu`, e.g. `tokens` of `Limit.costAfter`); none: requests. */
  unit?: string | undefined;
}

/** One limit's decision with what the headers need to describe its policy. */
export interface PolicyDecision extends LimitPolicy {
  /** The limit's decision for this request. */
  decision: Decision;
}

/**
 * Sets one header on an adapter's response (`res.setHeader`, `reply.header`, `ctx.set`). A
 * plain function of the target, so writing headers needs no closure per request.
 */
export type HeaderSetter<T> = (target: T, name: string, value: string) => void;

/** Whole seconds, rounded up, of a time in ms (at least 0). */
export function ceilSeconds(ms: number): number {
  return ms <= 0 ? 0 : Math.ceil(ms / 1000);
}

/**
 * The `Retry-After` value for a denial: the retry interval in whole seconds, rounded up, at
 * least 1; -1 (no `Retry-After` is sent) when the request can never be admitted
 * (`retryAfterMs` -1: its cost is above the limit's capacity).
 */
export function retryAfterSeconds(decision: Decision, concurrent = false): number {
  // A lease can be released any moment: the lease expiry is only an upper bound.
  if (concurrent) return 1;
  if (decision.retryAfterMs < 0) return -1;
  return Math.max(1, ceilSeconds(decision.retryAfterMs));
}

/**
 * Appends the rate-limit headers of `styles` to `out` as `[name, value]` pairs.
 *
 * @param reported - the most restrictive decision (legacy, draft-6, draft-7).
 * @param all - every limit's decision, in order (draft-8).
 * @param nowMs - the decision time in ms since the Unix epoch (for `X-RateLimit-Reset`).
 */
export function rateLimitHeaders(
  styles: readonly HeaderStyle[],
  reported: PolicyDecision,
  all: readonly PolicyDecision[],
  nowMs: number,
  out: [string, string][],
): void {
  const decisions = all.map((p) => p.decision);
  writeRateLimitHeaders(styles, reported, reported.decision, all, decisions, nowMs, out, pushPair);
}

/** A {@link HeaderSetter} that appends `[name, value]` to an array of pairs. */
export function pushPair(out: [string, string][], name: string, value: string): void {
  out.push([name, value]);
}

/** The header names sluice sends, canonical case. */
const CANONICAL = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
  policy: 'RateLimit-Policy',
  draftLimit: 'RateLimit-Limit',
  draftRemaining: 'RateLimit-Remaining',
  draftReset: 'RateLimit-Reset',
  rateLimit: 'RateLimit',
  retryAfter: 'Retry-After',
} as const;

type HeaderNames = { readonly [K in keyof typeof CANONICAL]: string };

/**
 * The same names in lower case: what Fastify (which lowercases every name it is given) and
 * HTTP/2 send. Header names are case-insensitive (RFC 9110 §5.1).
 */
const LOWERCASE: HeaderNames = Object.fromEntries(
  Object.entries(CANONICAL).map(([k, v]) => [k, v.toLowerCase()]),
) as unknown as HeaderNames;

/** The header names, canonical or in lower case. */
export const headerNames = (lowercase: boolean): HeaderNames => (lowercase ? LOWERCASE : CANONICAL);

/**
 * Writes the rate-limit headers of `styles` with `set`, one call per header: what
 * {@link rateLimitHeaders} appends, without building pairs (the adapters' hot path).
 *
 * @param reported - the most restrictive limit's policy, and `decision` its decision
 *   (legacy, draft-6, draft-7).
 * @param policies - every limit's policy, in order (draft-8); `decisions` their decisions,
 *   or `undefined` when there is one limit (its decision is `decision`).
 * @param nowMs - the decision time in ms since the Unix epoch (for `X-RateLimit-Reset`).
 * @param names - {@link headerNames}: canonical (default) or lower case.
 */
// biome-ignore lint/complexity/useMaxParams: perf: per response; positional, no options object per call
export function writeRateLimitHeaders<T>(
  styles: readonly HeaderStyle[],
  reported: LimitPolicy,
  decision: Decision,
  policies: readonly LimitPolicy[],
  decisions: readonly Decision[] | undefined,
  nowMs: number,
  target: T,
  set: HeaderSetter<T>,
  names: HeaderNames = CANONICAL,
): void {
  const d = decision;
  const quota = String(d.limit);
  // A denial reports 0 left; one that can never pass (-1) reports what is really left, so a
  // client sees the quota is not spent and that waiting for it will not help.
  const remaining = String(d.allowed || d.retryAfterMs < 0 ? d.remaining : 0);
  for (let s = 0; s < styles.length; s++) {
    switch (styles[s]) {
      case 'legacy':
        set(target, names.limit, quota);
        set(target, names.remaining, remaining);
        set(target, names.reset, epochSecondsText(nowMs + d.resetAfterMs));
        break;
      case 'draft-6':
        set(target, names.policy, `${quota};w=${reported.windowSeconds}`);
        set(target, names.draftLimit, quota);
        set(target, names.draftRemaining, remaining);
        set(target, names.draftReset, String(ceilSeconds(d.resetAfterMs)));
        break;
      case 'draft-7':
        set(target, names.policy, `${quota};w=${reported.windowSeconds}`);
        set(
          target,
          names.rateLimit,
          `limit=${quota}, remaining=${remaining}, reset=${ceilSeconds(d.resetAfterMs)}`,
        );
        break;
      case 'draft-8': {
        let policy = '';
        let state = '';
        for (let i = 0; i < policies.length; i++) {
          const p = policies[i]!;
          const pd = decisions === undefined ? d : decisions[i]!;
          const sep = i === 0 ? '' : ', ';
          policy +=
            p.concurrent === true
              ? `${sep}"${p.name}";q=${pd.limit};qu="concurrent-requests"`
              : p.unit !== undefined
                ? `${sep}"${p.name}";q=${pd.limit};qu="${p.unit}";w=${p.windowSeconds}`
                : `${sep}"${p.name}";q=${pd.limit};w=${p.windowSeconds}`;
          state += `${sep}"${p.name}";r=${pd.remaining};t=${ceilSeconds(pd.resetAfterMs)}`;
        }
        set(target, names.policy, policy);
        set(target, names.rateLimit, state);
        break;
      }
    }
  }
}

/** The last `X-RateLimit-Reset` value and its text: it changes once a second at most. */
let lastEpochSeconds = Number.NaN;
let lastEpochText = '';

/** `Math.ceil(ms / 1000)` as text, the previous answer reused while the second is the same. */
function epochSecondsText(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds !== lastEpochSeconds) {
    lastEpochSeconds = seconds;
    lastEpochText = String(seconds);
  }
  return lastEpochText;
}
