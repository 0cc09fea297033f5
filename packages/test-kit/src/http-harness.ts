import type { HttpLimitOptions, LimitInput } from '@sluice/core';

/**
 * The contract each adapter's test implements so that ONE table of HTTP behaviours
 * (`http-behaviours.ts`) runs against Express, Fastify and Koa alike (issue 4).
 */

/**
 * A route of the test app. Its handler counts its runs and answers 200 with the JSON
 * `{ ok: true, rateLimit }`, `rateLimit` being the decision the adapter exposes on the
 * request (Express `req.rateLimit`, Fastify `request.rateLimit`, Koa `ctx.state.rateLimit`;
 * left out when there is none, e.g. a skipped request).
 */
export interface RouteSpec {
  method: 'GET' | 'POST';
  /** A route pattern such as `/users/:id`. */
  path: string;
  /**
   * The per-route limit: Express/Koa `throttle(limit, options)`, Fastify
   * `config: { rateLimit: … }`; `false` opts the route out of the global limit (Fastify
   * `config.rateLimit: false`; Express/Koa: the route is registered with the adapter's
   * opt-out form, documented by the adapter). Undefined: only the global limit applies.
   */
  limit?: LimitInput | false;
  /** Extra options for the per-route limit (same shape as the global options). */
  options?: HttpLimitOptions;
}

export interface AppSpec {
  /** Options of the global `rateLimit(...)`; undefined: no global limiter. */
  global?: HttpLimitOptions;
  routes: RouteSpec[];
  /** Make the framework trust `X-Forwarded-For` (Express `trust proxy`, Fastify `trustProxy`, Koa `app.proxy`). */
  trustProxy?: boolean;
  /** Authenticated user taken from `Authorization: Bearer <user>` into the framework's usual place (`req.user = { id }`, Koa `ctx.state.user`). */
  bearerUser?: boolean;
}

export interface TestResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else the text. */
  body: unknown;
}

export interface TestClient {
  request(
    method: 'GET' | 'POST',
    path: string,
    headers?: Record<string, string>,
  ): Promise<TestResponse>;
  /** How many times the handler of `method path-pattern` ran. */
  handlerRuns(method: 'GET' | 'POST', path: string): number;
  close(): Promise<void>;
}

export interface AdapterHarness {
  name: 'express' | 'fastify' | 'koa';
  start(spec: AppSpec): Promise<TestClient>;
}
