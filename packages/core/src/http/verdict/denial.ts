import type { Decision } from '../../algorithms/decision.js';
import { SluiceConfigError } from '../../common/errors.js';
import type { RequestView } from '../../limits/request-view.js';
import { retryAfterSeconds } from './headers.js';
import { ENFORCED, type LimitedInfo, SHADOWED } from './shadow.js';
import { statusText } from './status-text.js';
import type { Verdict } from './verdict.js';

/**
 * The whole 429 answer, in one file: the status, `Retry-After`, `onLimited`, and the body
 * (sluice's JSON body, the draft-11 problem body of `body: 'problem'`, or the `message`
 * function's own), with its media type.
 */

/**
 * The 429 body of `body: 'problem'`: an RFC 9457 problem details object
 * (`application/problem+json`) of the problem type **Quota Exceeded** defined by the IETF
 * draft draft-ietf-httpapi-ratelimit-headers-11 (section "Problem Types"), which the
 * draft asks IANA to register in the "HTTP Problem Types" registry.
 *
 * Source: draft-ietf-httpapi-ratelimit-headers-11, "Problem Types" / "Quota Exceeded":
 * type URI `https://iana.org/assignments/http-problem-types#quota-exceeded`, title
 * "Request cannot be satisfied as assigned quota has been exceeded", recommended status
 * 429, extension member `violated-policies`: an array of strings, the names of the quota
 * policies (the `RateLimit-Policy` list members) the request violated. The members
 * `status` and `detail` are RFC 9457's own (§3.1.3, §3.1.4).
 *
 * @example
 * ```json
 * {
 *   "type": "https://iana.org/assignments/http-problem-types#quota-exceeded",
 *   "title": "Request cannot be satisfied as assigned quota has been exceeded",
 *   "status": 429,
 *   "detail": "Rate limit exceeded, retry in 12 seconds",
 *   "violated-policies": ["login"]
 * }
 * ```
 */
export interface QuotaExceededProblem {
  /** {@link QUOTA_EXCEEDED_TYPE}. */
  type: string;
  /** {@link QUOTA_EXCEEDED_TITLE}. */
  title: string;
  /** The response status (the `statusCode` option, default 429). */
  status: number;
  /** The `message` option, default `Rate limit exceeded, retry in N seconds`. */
  detail: string;
  /**
   * The names of the limits that denied the request, in the order of the `limit` option:
   * the policy names of the draft-8+ `RateLimit-Policy` header (a limit's `.named()` name,
   * the named limiter's name, or `<n>-per-<ms>ms`).
   */
  'violated-policies': string[];
}

/** The Quota Exceeded problem type URI (draft-ietf-httpapi-ratelimit-headers-11). */
export const QUOTA_EXCEEDED_TYPE = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

/** The Quota Exceeded problem title (draft-ietf-httpapi-ratelimit-headers-11). */
export const QUOTA_EXCEEDED_TITLE =
  'Request cannot be satisfied as assigned quota has been exceeded';

/** The media type of a problem details body (RFC 9457 §3). */
export const PROBLEM_JSON_TYPE = 'application/problem+json; charset=utf-8';

/**
 * The `body` option: `'json'` (default), sluice's
 * `{"statusCode":429,"error":"Too Many Requests","message":"…"}`; `'problem'`, the
 * {@link QuotaExceededProblem} as `application/problem+json`. A `message` function still
 * replaces the whole body.
 */
export type BodyStyle = 'json' | 'problem';

/**
 * Parses the `body` option; `true` for `'problem'`.
 * @throws {@link SluiceConfigError} naming `body`.
 */
export function parseBodyStyle(body: unknown): boolean {
  if (body === undefined || body === 'json') return false;
  if (body === 'problem') return true;
  throw new SluiceConfigError('body', body, "'json' or 'problem'");
}

/** The {@link QuotaExceededProblem} body as JSON text. */
export function quotaExceededBody(status: number, detail: string, violated: string[]): string {
  const problem: QuotaExceededProblem = {
    type: QUOTA_EXCEEDED_TYPE,
    title: QUOTA_EXCEEDED_TITLE,
    status,
    detail,
    'violated-policies': violated,
  };
  return JSON.stringify(problem);
}

/** What the 429 answer is made from: the parsed options it reads (see `HttpConfig`). */
export interface DenialConfig {
  statusCode: number;
  /** `body: 'problem'`. */
  problem: boolean;
  message: string | ((req: RequestView, decision: Decision) => string | object) | undefined;
  onLimited: ((req: RequestView, decision: Decision, info: LimitedInfo) => void) | undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';

/**
 * The 429 answer of one limiter: status, `Retry-After` and body of a denial,
 * `onLimited` called once. Keeps the default body of its last denial: it only changes with
 * the `Retry-After` seconds.
 */
export class DenialAnswer {
  readonly #config: DenialConfig;
  #lastBody: [seconds: number, body: string] | undefined;

  constructor(config: DenialConfig) {
    this.#config = config;
  }

  /** Fills the denial fields of `v` (a denied verdict) and calls `onLimited`. */
  deny(view: RequestView, v: Verdict): void {
    const c = this.#config;
    const decision = v.decision;
    v.retryAfterSeconds = retryAfterSeconds(decision, v.reportedConcurrent);
    if (v.reportedAdaptive) {
      // The server is full (Limit.adaptive), not the client over a quota: 503.
      this.#overloaded(view, v);
      return;
    }
    v.statusCode = c.statusCode;
    c.onLimited?.(view, decision, ENFORCED);
    if (c.problem && typeof c.message !== 'function') {
      const detail = c.message ?? defaultMessage(v.retryAfterSeconds);
      v.body = quotaExceededBody(c.statusCode, detail, v.violatedPolicies());
      v.contentType = PROBLEM_JSON_TYPE;
      return;
    }
    v.body = this.#body(view, decision, v.retryAfterSeconds);
    v.contentType =
      typeof v.body === 'string' && typeof c.message === 'function' ? TEXT : JSON_TYPE;
  }

  /** The 503 of an adaptive limit: `onLimited` is called; the body says the server is overloaded. */
  #overloaded(view: RequestView, v: Verdict): void {
    const c = this.#config;
    const status = 503;
    v.statusCode = status;
    c.onLimited?.(view, v.decision, ENFORCED);
    const text = `Server overloaded, retry in ${v.retryAfterSeconds} seconds`;
    v.body = `{"statusCode":${status},"error":${JSON.stringify(statusText(status))},"message":${JSON.stringify(text)}}`;
    v.contentType = JSON_TYPE;
  }

  /** A denial `mode: 'shadow'` lets through: `onLimited` with `{ shadow: true }`, no answer. */
  shadowed(view: RequestView, v: Verdict): void {
    this.#config.onLimited?.(view, v.decision, SHADOWED);
  }

  #body(view: RequestView, decision: Decision, seconds: number): string | object {
    const c = this.#config;
    const message = c.message;
    if (typeof message === 'function') return message(view, decision);
    const last = this.#lastBody;
    if (last !== undefined && last[0] === seconds) return last[1];
    const text = message ?? defaultMessage(seconds);
    const error = statusText(c.statusCode);
    const body = `{"statusCode":${c.statusCode},"error":${JSON.stringify(error)},"message":${JSON.stringify(text)}}`;
    this.#lastBody = [seconds, body];
    return body;
  }
}

/** The default 429 message; `seconds` -1: a request that can never be admitted. */
function defaultMessage(seconds: number): string {
  return seconds < 0
    ? 'Rate limit exceeded: this request costs more than the limit can ever admit, so retrying will not help'
    : `Rate limit exceeded, retry in ${seconds} seconds`;
}

/**
 * The 403 of an operator's deny (`LimitOperations.deny`): no `Retry-After`, the body in
 * the configured style (sluice's JSON, an RFC 9457 problem for `body: 'problem'`, or the
 * `message` function's own). In operated.ts's bundle only (see there).
 */
export function forbidBody(c: DenialConfig, view: RequestView, v: Verdict): void {
  const status = 403;
  v.statusCode = status;
  v.retryAfterSeconds = -1;
  if (typeof c.message === 'function') {
    v.body = c.message(view, v.decision);
    v.contentType = typeof v.body === 'string' ? TEXT : JSON_TYPE;
    return;
  }
  const text = 'Access denied';
  if (c.problem) {
    v.body = JSON.stringify({
      type: 'about:blank',
      title: statusText(status),
      status,
      detail: text,
    });
    v.contentType = PROBLEM_JSON_TYPE;
    return;
  }
  v.body = `{"statusCode":${status},"error":${JSON.stringify(statusText(status))},"message":${JSON.stringify(text)}}`;
  v.contentType = JSON_TYPE;
}
