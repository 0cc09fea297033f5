import type { Decision, HttpLimitOptions, LimitInput } from '@sluice/core';
import type { HttpVerdict } from '@sluice/core/http';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';

/**
 * Builds the response of a denied request, replacing the default 429 JSON body (the
 * Fastify-idiomatic hook, after @fastify/rate-limit's `errorResponseBuilder`).
 *
 * It receives the request and the core's verdict (`verdict.statusCode`, `verdict.decision`
 * with `retryAfterMs` in ms, `verdict.body`: the default body). Its return value is sent with
 * `reply.code(verdict.statusCode).send(value)` after the rate-limit headers and `Retry-After`
 * have been set: an object is serialized as JSON, a string is sent as is. Returning an
 * `Error` hands it to Fastify's error handling instead (its `statusCode`, else 500, applies).
 * A throw also goes to Fastify's error handling.
 */
export type ErrorResponseBuilder = (request: FastifyRequest, verdict: HttpVerdict) => unknown;

/**
 * Options of the per-route forms (`config: { rateLimit: { … } }`, `app.rateLimit({ … })`,
 * `@Throttle(limit, { … })`): the core's `HttpLimitOptions` (`limit`, `algorithm`,
 * `store`, `clock`, `prefix`, `throttles`, `user`, `key`, `ipv6Subnet`, `headers`, `skip`,
 * `onLimited`, `message`, `statusCode`, `onStoreError`, `logger`) plus `errorResponseBuilder`.
 * In `config.rateLimit` and `app.rateLimit()`, an option left out is inherited from the
 * nearest `rateLimit` plugin registration (as in @fastify/rate-limit), `limit` included.
 * `user` defaults to `request.user?.id`.
 */
export interface RouteRateLimitOptions extends HttpLimitOptions<FastifyRequest, FastifyReply> {
  /** Replaces the 429 response (see {@link ErrorResponseBuilder}). Default: the core's JSON body. */
  errorResponseBuilder?: ErrorResponseBuilder;
  /**
   * Where a denied request's answer goes:
   * - `'reply'` (default): sent at once (the JSON 429, or `errorResponseBuilder`'s value);
   *   the app's `setErrorHandler` never sees it;
   * - `'error-handler'`: handed to Fastify's error handling, as @fastify/rate-limit does,
   *   so the app's `setErrorHandler` answers it: an `Error` with `statusCode` (429, or the
   *   `statusCode` option), `message` (the default body's: "Rate limit exceeded, retry in N
   *   seconds"), `verdict` (the core's), and `body` (what `errorResponseBuilder` returned,
   *   when given; an `Error` it returns is handed over as it is). The rate-limit headers
   *   and `Retry-After` are on the reply already.
   * @default 'reply'
   * @throws `SluiceConfigError` naming `errorResponse` for any other value.
   * @example await app.register(rateLimit, { limit: '100/min', errorResponse: 'error-handler' });
   */
  errorResponse?: ErrorResponse;
  /**
   * The request hook the limit runs in: a later one sees what earlier hooks set (e.g.
   * `request.user` from authentication in `preHandler`), at the cost of parsing and
   * validating requests that are then denied.
   * @default 'onRequest'
   */
  hook?: RateLimitHook;
}

/** Where a denial's answer goes (see {@link RouteRateLimitOptions.errorResponse}). */
export type ErrorResponse = 'reply' | 'error-handler';

/** The Fastify request hooks a limit can run in (see {@link RouteRateLimitOptions.hook}). */
export type RateLimitHook = 'onRequest' | 'preParsing' | 'preValidation' | 'preHandler';

/**
 * The plugin's options: `await app.register(rateLimit, options)`. All of
 * {@link RouteRateLimitOptions}, with `limit` defaulting to `'throttle:60,1'` (60 requests
 * per minute, Laravel `ThrottleRequests`' default), plus `global`.
 */
export interface FastifyRateLimitOptions extends RouteRateLimitOptions {
  /**
   * `true` (default): the limit applies to every route registered after the plugin in its
   * context (and its children), except `config: { rateLimit: false }` routes and
   * `@SkipThrottle()` handlers. `false`: only routes with `config.rateLimit` or an
   * `app.rateLimit()` hook are limited (@fastify/rate-limit's `global`).
   */
  global?: boolean;
  /**
   * `true`: every route this registration limits (the global limit, `config.rateLimit`,
   * `app.rateLimit()` hooks, `@Throttle` handlers) gets, in its `schema.response`, the
   * denial's response (`429`, or the `statusCode` option: `Retry-After`, the rate-limit
   * headers of the `headers` option, sluice's JSON body schema; no body schema with
   * `errorResponseBuilder` or `errorResponse: 'error-handler'`) and the rate-limit headers
   * on its 2xx responses, so that @fastify/swagger's generated spec documents them. A
   * status the route describes itself is left as it is; routes not limited are not
   * changed. Inherited by registrations in child contexts. The same description as the
   * core's `openApiResponses(options)`.
   * @default false
   * @throws `SluiceConfigError` naming `openapi` for a value that is not a boolean.
   * @example await app.register(rateLimit, { limit: '100/min', openapi: true });
   */
  openapi?: boolean;
}

/**
 * A route's `config.rateLimit`, read once when the route is registered:
 * - a throttle string (`'throttle:10,1'`, `'throttle:api'`, `'10/s'`), a `Limit`, or an
 *   array of them: this limit applies to the route **in addition to** the global one (the
 *   request must pass both; a key both share is charged once);
 * - an options object ({@link RouteRateLimitOptions}): the same, with its own options
 *   overriding the registration's; its `limit` defaults to the registration's;
 * - `false`: the route is exempt from the global limit.
 *
 * (`& object` keeps `rateLimit: 42` a compile error: Fastify infers route config types, and
 * an all-optional options type alone would accept a number there.)
 *
 * Other rate limiters' option names (`max`, `timeWindow`, `windowMs`, `keyGenerator`…) are
 * compile errors here. Any other unknown name (a typo such as `limti`) is a
 * `SluiceConfigError` when the route is registered: Fastify infers each route's config type
 * from the route itself, so TypeScript cannot reject a key that no type names.
 */
export type RouteRateLimit =
  | LimitInput
  | (RouteRateLimitOptions & PeerOptionNames & object)
  | false;

/**
 * Names other rate limiters use, declared `never` so that `tsc` rejects them in a route's
 * `config.rateLimit`; write `limit` (`'100/min'`, `'throttle:100,1'`, a `Limit`), `key`,
 * `prefix`, `headers` or `skip` instead.
 */
export interface PeerOptionNames {
  /** @deprecated not a sluice option: write `limit: '100/min'` (the count is in the limit). */
  max?: never;
  /** @deprecated not a sluice option: write `limit: '100/min'` (the window is in the limit). */
  timeWindow?: never;
  /** @deprecated not a sluice option: write `limit: 'throttle:100,15'` (100 per 15 minutes). */
  windowMs?: never;
  /** @deprecated not a sluice option: write `key: (req) => string`. */
  keyGenerator?: never;
  /** @deprecated not a sluice option: write `skip: (req) => boolean`. */
  allowList?: never;
  /** @deprecated not a sluice option: write `headers: false` or a header style. */
  addHeaders?: never;
  /** @deprecated not a sluice option: write `prefix`. */
  nameSpace?: never;
  /** @deprecated not a sluice option: write `store: new RedisStore({ client })`. */
  redis?: never;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's rate limit (see `RouteRateLimit` in @sluice/fastify); `false` opts out. */
    rateLimit?: RouteRateLimit;
  }
  interface FastifyRequest {
    /**
     * The rate-limit decision of this request (the most restrictive of its limits), set by
     * @sluice/fastify once a limit has been checked; `undefined` on unlimited routes.
     */
    rateLimit?: Decision;
  }
  interface FastifyInstance {
    /**
     * An `onRequest` (or `preHandler`) hook limiting the routes it is attached to:
     * `app.get('/c', { onRequest: app.rateLimit('throttle:api') }, handler)`. Options left
     * out are inherited from the nearest plugin registration; no argument: the
     * registration's own limit. Added by @sluice/fastify's plugin.
     *
     * @throws `SluiceConfigError` (from @sluice/core) for an invalid limit or option, when
     *   called, never on a request.
     */
    rateLimit(limit?: LimitInput | RouteRateLimitOptions): onRequestHookHandler;
  }
}
