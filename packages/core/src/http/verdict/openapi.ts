import type { HttpLimiter } from '../limiter/http-limiter.js';
import type { HttpConfig, HttpLimitOptions } from '../options/options.js';
import { parseHttpOptions } from '../options/parse-options.js';
import { QUOTA_EXCEEDED_TITLE, QUOTA_EXCEEDED_TYPE } from './denial.js';
import { type HeaderStyle, headerNames } from './headers.js';
import { statusText } from './status-text.js';

/**
 * The OpenAPI 3 description of what sluice sends, written once here for every front door
 * (Fastify's `openapi: true`, NestJS's `addSluiceApiResponses`, `openApiResponses` for the
 * others): the denial's response with its headers and body, and the rate-limit headers of
 * every response a limit lets through. See docs/guide/features/openapi.md.
 */

/** A JSON Schema as OpenAPI 3.0 writes one (`type`, `properties`, `example`…). */
export type OpenApiSchemaObject = Record<string, unknown>;

/** An OpenAPI 3 Header Object: what one response header means and its schema. */
export interface OpenApiHeaderObject {
  /** What the header says, with its unit. */
  description: string;
  /** Its value's schema: `{ type: 'integer' }` or `{ type: 'string', example }`. */
  schema: OpenApiSchemaObject;
}

/** An OpenAPI 3 Response Object, as sluice describes a denial. */
export interface OpenApiResponseObject {
  /** What the response means. */
  description: string;
  /** The headers it carries, by canonical name (`Retry-After`, `X-RateLimit-Limit`…). */
  headers: Record<string, OpenApiHeaderObject>;
  /**
   * The body's schema by media type (`application/json`, `application/problem+json`);
   * absent when the application writes the body itself (a `message` function, Fastify's
   * `errorResponseBuilder` or `errorResponse: 'error-handler'`).
   */
  content?: Record<string, { schema: OpenApiSchemaObject }>;
}

/**
 * What {@link openApiResponses} returns: a route's responses to add to its OpenAPI
 * operation.
 *
 * @example
 * ```json
 * { "responses": { "429": { "description": "Too Many Requests: …", "headers": { "Retry-After": { … } },
 *     "content": { "application/json": { "schema": { … } } } } },
 *   "headers": { "X-RateLimit-Limit": { "description": "…", "schema": { "type": "integer" } } } }
 * ```
 */
export interface OpenApiResponses {
  /**
   * The denials by status code: `'429'` (the `statusCode` option), and `'503'` when a limit
   * is `Limit.adaptive` (the server is full). Empty under `mode: 'shadow'` (nothing is
   * denied).
   */
  responses: Record<string, OpenApiResponseObject>;
  /**
   * The rate-limit headers on the responses the limit lets through (the 2xx), by canonical
   * name; empty with `headers: false`.
   */
  headers: Record<string, OpenApiHeaderObject>;
}

const integer = (description: string): OpenApiHeaderObject => ({
  description,
  schema: { type: 'integer', minimum: 0 },
});
const text = (description: string, example: string): OpenApiHeaderObject => ({
  description,
  schema: { type: 'string', example },
});

const N = headerNames(false);
const POLICY = 'The quota policy (IETF draft-ietf-httpapi-ratelimit-headers)';

/** The headers each style writes, in the order it writes them (see headers.ts). */
const STYLE_HEADERS: Record<HeaderStyle, [string, OpenApiHeaderObject][]> = {
  legacy: [
    [N.limit, integer('The quota of the most restrictive limit, in requests (or units).')],
    [N.remaining, integer('What is left of that quota now; 0 on a denial.')],
    [N.reset, integer('When that quota is full again: Unix epoch seconds, rounded up.')],
  ],
  'draft-6': [
    [N.policy, text(`${POLICY} -06: quota;w=window seconds.`, '60;w=60')],
    [N.draftLimit, integer('The quota of the most restrictive limit (draft -06).')],
    [N.draftRemaining, integer('What is left of that quota now; 0 on a denial (draft -06).')],
    [N.draftReset, integer('Seconds until that quota is full again, rounded up (draft -06).')],
  ],
  'draft-7': [
    [N.policy, text(`${POLICY} -07: quota;w=window seconds.`, '60;w=60')],
    [
      N.rateLimit,
      text(
        'The most restrictive limit now (draft -07): limit, remaining, reset in seconds.',
        'limit=60, remaining=0, reset=12',
      ),
    ],
  ],
  'draft-8': [
    [
      N.policy,
      text(
        `${POLICY} -08 to -11: one member per limit, "name";q=quota;w=window seconds.`,
        '"api";q=60;w=60',
      ),
    ],
    [
      N.rateLimit,
      text(
        'Every limit now (draft -08 to -11): "name";r=remaining;t=seconds until full.',
        '"api";r=0;t=12',
      ),
    ],
  ],
};

const RETRY_AFTER: OpenApiHeaderObject = {
  description:
    'Seconds to wait before retrying, rounded up, at least 1; not sent when the request ' +
    'costs more than the limit can ever admit.',
  schema: { type: 'integer', minimum: 1 },
};

const JSON_MEDIA = 'application/json';
const PROBLEM_MEDIA = 'application/problem+json';

/** sluice's default JSON body of a denial with `status`. */
function jsonBody(status: number): OpenApiSchemaObject {
  return {
    type: 'object',
    required: ['statusCode', 'error', 'message'],
    properties: {
      statusCode: { type: 'integer', example: status },
      error: { type: 'string', example: statusText(status) },
      message: { type: 'string', example: 'Rate limit exceeded, retry in 12 seconds' },
    },
  };
}

/** The RFC 9457 Quota Exceeded problem of `body: 'problem'` (see `QuotaExceededProblem`). */
function problemBody(status: number): OpenApiSchemaObject {
  return {
    type: 'object',
    required: ['type', 'title', 'status', 'detail', 'violated-policies'],
    properties: {
      type: { type: 'string', example: QUOTA_EXCEEDED_TYPE },
      title: { type: 'string', example: QUOTA_EXCEEDED_TITLE },
      status: { type: 'integer', example: status },
      detail: { type: 'string', example: 'Rate limit exceeded, retry in 12 seconds' },
      'violated-policies': { type: 'array', items: { type: 'string' }, example: ['api'] },
    },
  };
}

/**
 * The description of one limiter's answers (its parsed options).
 * @param customBody - the application writes the denial's body (no schema is given).
 */
function describeConfig(config: HttpConfig<unknown>, customBody: boolean): OpenApiResponses {
  const headers: Record<string, OpenApiHeaderObject> = {};
  for (const style of config.headerStyles) {
    for (const [name, header] of STYLE_HEADERS[style]) headers[name] = header;
  }
  const responses: Record<string, OpenApiResponseObject> = {};
  if (config.shadow) return { responses, headers };
  const denial = (status: number, why: string, body: OpenApiSchemaObject | undefined) => {
    const response: OpenApiResponseObject = {
      description: `${statusText(status)}: ${why}`,
      headers: { ...headers, [N.retryAfter]: RETRY_AFTER },
    };
    if (body !== undefined) {
      response.content = { [config.problem ? PROBLEM_MEDIA : JSON_MEDIA]: { schema: body } };
    }
    responses[String(status)] = response;
  };
  const custom = customBody || typeof config.message === 'function';
  const s = config.statusCode;
  denial(
    s,
    'a rate limit denied the request (sluice).',
    custom ? undefined : config.problem ? problemBody(s) : jsonBody(s),
  );
  const adaptive = config.limits.entries.some(
    (e) => e.kind === 'limit' && e.limit.adaptive !== undefined,
  );
  if (adaptive) {
    // Limit.adaptive: the server is full; always sluice's JSON (see denial.ts).
    denial(503, 'the server is overloaded (sluice Limit.adaptive).', jsonBody(503));
  }
  return { responses, headers };
}

/**
 * Merges the descriptions of the limiters one route runs: the headers of every one, and
 * each status's response (two limiters answering one status with different bodies give
 * both media types; one whose body the application writes drops that media type's schema).
 */
function merge(list: readonly OpenApiResponses[]): OpenApiResponses {
  const out: OpenApiResponses = { responses: {}, headers: {} };
  for (const one of list) {
    Object.assign(out.headers, one.headers);
    for (const [status, r] of Object.entries(one.responses)) {
      const had = out.responses[status];
      if (had === undefined) {
        out.responses[status] = { ...r, headers: { ...r.headers } };
        continue;
      }
      Object.assign(had.headers, r.headers);
      if (had.content === undefined || r.content === undefined) delete had.content;
      else had.content = { ...had.content, ...r.content };
    }
  }
  return out;
}

/**
 * The OpenAPI 3 responses sluice's limit answers with, for an API spec: the denial
 * (`'429'`, or the `statusCode` option) with `Retry-After`, the rate-limit headers of the
 * `headers` option as sluice sends them (`X-RateLimit-*`, the IETF draft `RateLimit` /
 * `RateLimit-Policy` fields) and its JSON body (sluice's `{ statusCode, error, message }`,
 * or the `application/problem+json` Quota Exceeded problem of `body: 'problem'`), and the
 * rate-limit headers of the responses it lets through. Header names are canonical
 * (`X-RateLimit-Limit`); Fastify and HTTP/2 send them in lower case, the same names (RFC
 * 9110 §5.1). `@sluice/fastify`'s `openapi: true` and `@sluice/nestjs`'s
 * `addSluiceApiResponses` add the same to every limited route; with other frameworks, merge
 * it into the operations your spec generator writes.
 *
 * @param options - the options given to the limit (`rateLimit(options)`, `throttle(limit,
 *   options)`): `headers`, `body`, `message`, `statusCode`, `mode` and `limit` shape the
 *   answer; the others are validated and not read. Default: sluice's defaults (legacy
 *   headers, JSON body, 429).
 * @returns `responses` by status code and `headers` for the 2xx (see {@link OpenApiResponses}).
 * @throws `SluiceConfigError` naming an invalid option or an unknown option name, as the
 *   limit itself would.
 * @example
 * ```ts
 * const { responses, headers } = openApiResponses({ headers: 'draft-8' });
 * operation.responses = { ...operation.responses, ...responses };
 * operation.responses['200'].headers = { ...headers, ...operation.responses['200'].headers };
 * ```
 */
export function openApiResponses(options: HttpLimitOptions = {}): OpenApiResponses {
  const config = parseHttpOptions(options as HttpLimitOptions<unknown, never>);
  return describeConfig(config, false);
}

/**
 * For adapters: the merged {@link OpenApiResponses} of the limiters one route runs, in
 * order (their parsed options; `customBody`: the adapter's own option writes the denial's
 * body, so no body schema is given).
 *
 * @example
 * ```ts
 * const spec = openApiOfLimiters([{ limiter: pipeline.limiter, customBody: build !== undefined }]);
 * ```
 */
export function openApiOfLimiters(
  limiters: readonly { limiter: Pick<HttpLimiter<never>, 'config'>; customBody?: boolean }[],
): OpenApiResponses {
  return merge(
    limiters.map((l) =>
      describeConfig(l.limiter.config as HttpConfig<unknown>, l.customBody === true),
    ),
  );
}
