import { SluiceConfigError } from '../common/errors.js';

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
