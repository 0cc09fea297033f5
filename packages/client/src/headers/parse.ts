import type { HeaderStyle } from '@sluice/core/shared';
import {
  arrayBufferToBase64,
  type BareItem,
  type List,
  type Parameters,
  Token,
} from 'structured-headers';
import { decimalField, onCallerClock, read } from './fields.js';
import {
  count,
  draft6,
  draft7,
  draft67Windows,
  legacy,
  SF_INTEGER_MAX,
  tryDictionary,
  tryList,
} from './older.js';
import { anthropic, openAi } from './providers.js';
import type { HeadersLike, ObservedPolicy } from './types.js';

export type { HeadersLike, ObservedPolicy };

/**
 * What one response's headers say: its policies and its `Retry-After`.
 *
 * @example
 * ```ts
 * const info: RateLimitInfo = parseRateLimitHeaders(response.headers, Date.now());
 * if (info.retryAt !== undefined) console.log(`retry in ${info.retryAt - Date.now()} ms`);
 * ```
 */
export interface RateLimitInfo {
  /**
   * The header style the policies were read from (`undefined`: none), the most recent one a
   * response carries; the core's `HeaderStyle`.
   *
   * @example
   * ```ts
   * parseRateLimitHeaders(new Headers({ 'X-RateLimit-Remaining': '3' }), Date.now()).style; // 'legacy'
   * ```
   */
  style: ReadStyle | undefined;
  /** The policies, in the server's order. */
  policies: ObservedPolicy[];
  /**
   * `retry-after-ms` (OpenAI), else `Retry-After` (delay-seconds or an HTTP date), as a time
   * in ms on the caller's clock.
   */
  retryAt: number | undefined;
  /**
   * `RateLimit-Reason` (Atlassian's, with the `Beta-` fields): the name of the limit that
   * denied the request, when sent as a token or a string of 1 to 64 visible characters.
   */
  reason: string | undefined;
}

/**
 * The headers a response's policies were read from: the core's {@link HeaderStyle}
 * (`'draft-8'` also for draft-9 to -11, their `Beta-` prefixed fields and the next
 * revision's renamed parameters), or a provider's own (`'openai'`, `'anthropic'`).
 *
 * @example
 * ```ts
 * const style: ReadStyle = parseRateLimitHeaders(response.headers, Date.now()).style ?? 'legacy';
 * ```
 */
export type ReadStyle = HeaderStyle | 'openai' | 'anthropic';

/**
 * Reads the rate-limit headers of one response, never throwing: a malformed field is ignored
 * as draft-ietf-httpapi-ratelimit-headers-11 asks ("Malformed RateLimit header fields MUST be
 * ignored"), and so is a malformed member or parameter (a negative `r`, a `q` that is not an
 * integer, a `w` of 0). Header styles, the most recent found wins (the others on the same response
 * describe the same limit less exactly):
 *
 * - draft-8 to draft-11: `RateLimit-Policy: "name";q=…;w=…;qu=…;pk=:…:` and
 *   `RateLimit: "name";r=…;t=…;pk=:…:`, RFC 9651 lists, one member per policy; also the
 *   revision proposed after the directorate review (`RateLimit: "name";a=…;w=…;c=…`: `a`
 *   available, `w` seconds to the reset, `c` the request's cost) and the same fields with
 *   Atlassian's `Beta-` prefix (`Beta-RateLimit`, `Beta-RateLimit-Policy`), read when the
 *   unprefixed ones say nothing; the draft is a draft, and these are what its revisions sent;
 * - OpenAI: `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (resets as `6m0s`,
 *   `1.5s`, `20ms`), policies `requests` and `tokens`;
 * - Anthropic: `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`
 *   (resets RFC 3339 times, read against the response's `Date`);
 * - draft-7: `RateLimit: limit=…, remaining=…, reset=…` and `RateLimit-Policy: 10;w=1`;
 * - draft-6: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `RateLimit-Policy`;
 * - legacy: `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (GitHub and
 *   sluice send Unix epoch seconds, others a delta: a value >= 1e9 is an epoch in seconds,
 *   >= 1e12 in ms, else delta seconds), `X-RateLimit-Resource` (GitHub) as the policy name.
 *
 * `Retry-After` is delay-seconds or an HTTP date (RFC 9110 §10.2.3), the date read against
 * the response's `Date` when it has one; OpenAI's `retry-after-ms` comes first when valid.
 * `RateLimit-Reason` (Atlassian) is returned as `reason`. Several members for one policy in a field (a
 * conflict) keep the most restrictive values: the least `q` and `r`, the longest `w` and `t`.
 *
 * @param headers - the response's headers (`response.headers`).
 * @param now - when the response arrived, in ms on the caller's clock.
 *
 * @example
 * ```ts
 * const info = parseRateLimitHeaders(
 *   new Headers({ 'RateLimit-Policy': '"burst";q=100;w=60', RateLimit: '"burst";r=0;t=12' }),
 *   Date.now(),
 * );
 * info.policies[0]; // { id: 'burst', quota: 100, windowSeconds: 60, remaining: 0, resetAt: now + 12_000, … }
 * ```
 */
export function parseRateLimitHeaders(headers: HeadersLike, now: number): RateLimitInfo {
  const retryAt = parseRetryAfter(headers, now);
  const reason = parseReason(headers);
  const found = (style: ReadStyle, policies: ObservedPolicy[]): RateLimitInfo => ({
    style,
    policies,
    retryAt,
    reason,
  });
  const policyField = read(headers, 'ratelimit-policy');
  const stateField = read(headers, 'ratelimit');
  const policyList = listOf(policyField);
  const stateList = listOf(stateField);

  const modern = draft8(policyList, stateList, now);
  if (modern.length > 0) return found('draft-8', modern);
  // Atlassian's `Beta-RateLimit` / `Beta-RateLimit-Policy`: draft-8+ syntax under a prefix.
  const beta = draft8(
    listOf(read(headers, 'beta-ratelimit-policy')),
    listOf(read(headers, 'beta-ratelimit')),
    now,
  );
  if (beta.length > 0) return found('draft-8', beta);
  const provider = openAi(headers, now);
  if (provider.length > 0) return found('openai', provider);
  const claude = anthropic(headers, now);
  if (claude.length > 0) return found('anthropic', claude);

  const windows = draft67Windows(policyList);
  if (stateField !== undefined && stateList === undefined) {
    const dict = tryDictionary(stateField);
    const p = dict === undefined ? undefined : draft7(dict, windows, now);
    if (p !== undefined) return found('draft-7', [p]);
  }
  const six = draft6(headers, windows, now);
  if (six !== undefined) return found('draft-6', [six]);
  const legacyPolicy = legacy(headers, now);
  if (legacyPolicy !== undefined) return found('legacy', [legacyPolicy]);
  return { style: undefined, policies: [], retryAt, reason };
}

function listOf(text: string | undefined): List | undefined {
  return text === undefined ? undefined : tryList(text);
}

/** A policy identifier: an sf-string (draft-11) or, leniently, a token. */
function identifier(value: BareItem): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Token) return value.toString();
  return undefined;
}

/** The `pk` parameter: absent, a byte sequence (base64), or `null` when malformed. */
function partitionKey(params: Parameters): string | undefined | null {
  const pk = params.get('pk');
  if (pk === undefined) return undefined;
  return pk instanceof ArrayBuffer ? arrayBufferToBase64(pk) : null;
}

const idOf = (name: string, pk: string | undefined) =>
  pk === undefined ? name : `${name}\u0000${pk}`;

/** draft-8..11: policies from `RateLimit-Policy`, their state from `RateLimit`. */
function draft8(
  policyList: List | undefined,
  stateList: List | undefined,
  now: number,
): ObservedPolicy[] {
  const byId = new Map<string, ObservedPolicy>();
  const entry = (name: string, pk: string | undefined): ObservedPolicy => {
    const id = idOf(name, pk);
    let p = byId.get(id);
    if (p === undefined) {
      p = {
        id,
        name,
        partitionKey: pk,
        quota: undefined,
        windowSeconds: undefined,
        concurrent: false,
        tokens: false,
        remaining: undefined,
        resetAt: undefined,
        cost: undefined,
      };
      byId.set(id, p);
    }
    return p;
  };
  for (const member of policyList ?? []) {
    const [value, params] = member;
    if (Array.isArray(value)) continue; // an inner list: not a policy
    const name = identifier(value);
    const pk = partitionKey(params);
    const q = count(params.get('q'));
    const w = params.get('w');
    const qu = params.get('qu');
    const unit = typeof qu === 'string' || qu instanceof Token ? qu.toString() : undefined;
    if (name === undefined || pk === null || q === undefined) continue;
    if (w !== undefined && (count(w) === undefined || w === 0)) continue;
    if (qu !== undefined && unit === undefined) continue;
    // Units other than requests (content-bytes…) say nothing about a request count.
    if (unit !== undefined && unit !== 'requests' && unit !== 'concurrent-requests') continue;
    const p = entry(name, pk);
    p.quota = p.quota === undefined ? q : Math.min(p.quota, q);
    if (w !== undefined) p.windowSeconds = Math.max(p.windowSeconds ?? 0, w as number);
    if (unit === 'concurrent-requests') p.concurrent = true;
  }
  for (const member of stateList ?? []) {
    const [value, params] = member;
    if (Array.isArray(value)) continue;
    const name = identifier(value);
    const pk = partitionKey(params);
    // draft-8..11 `r` / `t`; the next revision's `a` (available) / `w` (reset window).
    const r = either(params, 'r', 'a', Math.min);
    const t = either(params, 't', 'w', Math.max);
    const c = params.has('c') ? count(params.get('c')) : 1;
    if (name === undefined || pk === null || r === undefined || r === null) continue;
    if (t === null || c === undefined) continue;
    const p = entry(name, pk);
    p.remaining = p.remaining === undefined ? r : Math.min(p.remaining, r);
    if (t !== undefined) p.resetAt = Math.max(p.resetAt ?? 0, now + t * 1000);
    if (params.has('c')) p.cost = Math.max(p.cost ?? 0, c);
  }
  return [...byId.values()];
}

/**
 * One count under either of two parameter names (a draft's and its successor's), both kept
 * by `pick` when both are sent: `undefined` when neither is, `null` when one is malformed.
 */
function either(
  params: Parameters,
  name: string,
  renamed: string,
  pick: (a: number, b: number) => number,
): number | undefined | null {
  let value: number | undefined;
  for (const key of [name, renamed]) {
    if (!params.has(key)) continue;
    const v = count(params.get(key));
    if (v === undefined) return null;
    value = value === undefined ? v : pick(value, v);
  }
  return value;
}

/**
 * OpenAI's `retry-after-ms` (ms, a decimal), else `Retry-After`: delay-seconds, or an HTTP
 * date read against the response's `Date`.
 */
function parseRetryAfter(headers: HeadersLike, now: number): number | undefined {
  const ms = decimalField(read(headers, 'retry-after-ms'));
  if (ms !== undefined && ms <= SF_INTEGER_MAX) return now + Math.ceil(ms);
  const text = read(headers, 'retry-after')?.trim();
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return seconds > SF_INTEGER_MAX ? undefined : now + seconds * 1000;
  }
  // An HTTP date has letters (a day or month name); bare numbers of other shapes
  // (`-5`, `1.5`) are not valid and are ignored.
  if (!/[A-Za-z]/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return onCallerClock(headers, at, now);
}

/** `RateLimit-Reason: jira-burst-based` (a token, or an sf-string): the limit that denied. */
function parseReason(headers: HeadersLike): string | undefined {
  const text = read(headers, 'ratelimit-reason')?.trim();
  if (text === undefined) return undefined;
  const unquoted = /^"[^"\\]*"$/.test(text) ? text.slice(1, -1) : text;
  return /^[\x21-\x7e]{1,64}$/.test(unquoted) ? unquoted : undefined;
}
