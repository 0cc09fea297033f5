import type { HttpLimitOptions, LimitInput } from '@sluice/core';
import type { Gate } from './gate.js';

/**
 * The contract each adapter's test implements so that ONE table of HTTP behaviours
 * (`http-behaviours.ts`) runs against Express, Fastify and Koa alike.
 */

/**
 * A route of the test app. Its handler counts its runs and answers 200 with the JSON
 * `{ ok: true, rateLimit }`, `rateLimit` being the decision the adapter exposes on the
 * request (Express `req.rateLimit`, Fastify `request.rateLimit`, Koa `ctx.state.rateLimit`;
 * left out when there is none, e.g. a skipped request). A request with the header
 * `x-status: <n>` is answered with status n instead of 200 (outcome-aware counting).
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
  /** The handler is marked `@SkipThrottle()` (exempt from the global limit only). */
  skipThrottle?: boolean;
  /**
   * The handler is mounted as a `.bind()` copy of the (marked) method, as controllers' methods
   * usually are: `app.get('/health', users.health.bind(users))`. Frameworks that call the
   * method themselves (Nest) ignore it.
   */
  bound?: boolean;
  /**
   * The route is served by a router mounted at this pattern (`/users/:id`), `path` being
   * relative to it: Express `app.use(mount, router)`, Koa a `Router({ prefix })`, Fastify a
   * plugin registered with `{ prefix }`. Requests use the whole path (`/users/1/posts`).
   */
  mount?: string;
  /**
   * A slow handler: after counting its run it waits for `gate.wait()` (opened by the test)
   * before answering, so requests can be held in flight (concurrency limits).
   */
  gate?: Gate;
}

export interface AppSpec {
  /** Options of the global `rateLimit(...)`; undefined: no global limiter. */
  global?: HttpLimitOptions;
  routes: RouteSpec[];
  /**
   * Make the framework trust `X-Forwarded-For` from the test client as a proxy (Express
   * `trust proxy` and Fastify `trustProxy` `'loopback'`, Koa `app.proxy` with
   * `maxIpsCount: 1`); `'all'`: trust every hop (Express and Fastify `true`, Koa `app.proxy`
   * alone), which a client can abuse.
   */
  trustProxy?: boolean | 'all';
  /** Authenticated user taken from `Authorization: Bearer <user>` into the framework's usual place (`req.user = { id }`, Koa `ctx.state.user`). */
  bearerUser?: boolean;
  /** With `bearerUser`: the id stored for a token (default: the token itself), e.g. an object. */
  userIds?: Record<string, unknown>;
  /**
   * With `bearerUser`: authentication runs as late as the framework allows before the
   * handler (Fastify: a `preHandler` hook, the limits with `hook: 'preHandler'`; Express and
   * Koa: a middleware before the limiters, as usual).
   */
  lateAuth?: boolean;
  /**
   * The app listens on a real port (Fastify: `listen` instead of `inject`), so that
   * `TestClient.url` is set and a test can open and drop connections itself.
   */
  listen?: boolean;
}

/** The id the harness's authentication stores for `token` (see {@link AppSpec.userIds}). */
export function userIdFor(spec: AppSpec, token: string): unknown {
  return spec.userIds !== undefined && Object.hasOwn(spec.userIds, token)
    ? spec.userIds[token]
    : token;
}

/** A route's id in `handlerRuns`: its method and whole pattern (mount included). */
export function routeId(route: RouteSpec): string {
  return `${route.method} ${route.mount ?? ''}${route.path}`;
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
    method: 'GET' | 'POST' | 'HEAD',
    path: string,
    headers?: Record<string, string>,
  ): Promise<TestResponse>;
  /** How many times the handler of `method path-pattern` ran. */
  handlerRuns(method: 'GET' | 'POST', path: string): number;
  /**
   * The app's base URL (`http://127.0.0.1:<port>`) when it listens on a real port (always
   * for Express and Koa, with `AppSpec.listen` for Fastify); else undefined.
   */
  url?: string;
  close(): Promise<void>;
}

export interface AdapterHarness {
  name:
    | 'express'
    | 'fastify'
    | 'koa'
    | 'nestjs on express'
    | 'nestjs on fastify'
    | `fetch on ${string}`
    | `hono on ${string}`;
  start(spec: AppSpec): Promise<TestClient>;
  /**
   * Starts an app with a global limit registered where `route` (which has a per-route limit)
   * is out of its reach: Fastify registers the plugin in one encapsulated context and the
   * route in a sibling; Express and Koa mount the route on a router of its own. Resolves to
   * a client, or rejects when the adapter refuses such an app at startup.
   */
  startOutOfReach(spec: AppSpec, route: RouteSpec): Promise<TestClient>;
}

/** Starts an app with `harness`, runs `fn` against it and always closes it. */
export async function withApp(
  harness: AdapterHarness,
  spec: AppSpec,
  fn: (client: TestClient) => Promise<void>,
): Promise<void> {
  const client = await harness.start(spec);
  try {
    await fn(client);
  } finally {
    await client.close();
  }
}

/** The statuses of `n` requests in a row (GET unless `method` says otherwise). */
export async function statuses(
  client: TestClient,
  n: number,
  path: string,
  headers?: Record<string, string>,
  method: 'GET' | 'POST' | 'HEAD' = 'GET',
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await client.request(method, path, headers)).status);
  return out;
}
