import type { Decision } from './decision.js';

/**
 * Which rate-limit headers to send (DESIGN §6):
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

/** The `headers` option: one style, several, or `false` for none. */
export type HeadersOption = HeaderStyle | readonly HeaderStyle[] | false;

/** One limit's decision with what the headers need to describe its policy. */
export interface PolicyDecision {
  /** The policy name used by draft-8 (the limit's name). */
  name: string;
  /** The policy window in **seconds** (`w=`), rounded up. */
  windowSeconds: number;
  decision: Decision;
}

/** Whole seconds, rounded up, of a time in ms (at least 0). */
export function ceilSeconds(ms: number): number {
  return ms <= 0 ? 0 : Math.ceil(ms / 1000);
}

/** The `Retry-After` value for a denial: the retry interval in whole seconds, rounded up, at least 1. */
export function retryAfterSeconds(decision: Decision): number {
  const ms = decision.retryAfterMs < 0 ? decision.resetAfterMs : decision.retryAfterMs;
  return Math.max(1, Math.ceil(ms / 1000));
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
  const d = reported.decision;
  const remaining = d.allowed ? d.remaining : 0;
  for (const style of styles) {
    switch (style) {
      case 'legacy':
        out.push(
          ['X-RateLimit-Limit', String(d.limit)],
          ['X-RateLimit-Remaining', String(remaining)],
          ['X-RateLimit-Reset', String(Math.ceil((nowMs + d.resetAfterMs) / 1000))],
        );
        break;
      case 'draft-6':
        out.push(
          ['RateLimit-Policy', `${d.limit};w=${reported.windowSeconds}`],
          ['RateLimit-Limit', String(d.limit)],
          ['RateLimit-Remaining', String(remaining)],
          ['RateLimit-Reset', String(ceilSeconds(d.resetAfterMs))],
        );
        break;
      case 'draft-7':
        out.push(
          ['RateLimit-Policy', `${d.limit};w=${reported.windowSeconds}`],
          [
            'RateLimit',
            `limit=${d.limit}, remaining=${remaining}, reset=${ceilSeconds(d.resetAfterMs)}`,
          ],
        );
        break;
      case 'draft-8': {
        let policy = '';
        let state = '';
        for (const p of all) {
          const sep = policy === '' ? '' : ', ';
          const r = p.decision.remaining;
          policy += `${sep}"${p.name}";q=${p.decision.limit};w=${p.windowSeconds}`;
          state += `${sep}"${p.name}";r=${r};t=${ceilSeconds(p.decision.resetAfterMs)}`;
        }
        out.push(['RateLimit-Policy', policy], ['RateLimit', state]);
        break;
      }
    }
  }
}
