import type { ExecutionContext } from '@nestjs/common';
import type { HttpLimitOptions, LimitInput } from '@sluice/core';
import type { HttpPipeline } from '@sluice/core/http';

/**
 * The request the guard limits: an Express `req` on `@nestjs/platform-express`, a Fastify
 * `request` on `@nestjs/platform-fastify` (what `getRequestResponse` returns elsewhere).
 */
// biome-ignore lint/suspicious/noExplicitAny: an Express or a Fastify request, as the platform gives it
export type NestRequest = any;
/** The response headers are written to: Express `res` or Fastify `reply`. */
// biome-ignore lint/suspicious/noExplicitAny: an Express response or a Fastify reply
export type NestResponse = any;

/** The core's pipeline on Nest's request and response: one per limit the guard runs. */
export type NestPipeline = HttpPipeline<NestRequest, NestResponse>;

/** What `getRequestResponse` returns: the HTTP request and response behind a context. */
export interface RequestResponse {
  /** The request limits read (method, IP, user, headers); `req.rateLimit` is set on it. */
  req: NestRequest;
  /** Where the rate-limit headers are written: Express `res` or Fastify `reply`. */
  res: NestResponse;
}

/**
 * Options of `@Throttle(limit, options)`: the core's HTTP options for one route. Each one
 * given here replaces the module's for this limit; the others come from
 * `SluiceModule.forRoot(options)` (store, clock, headers…).
 */
export type ThrottleOptions = Omit<HttpLimitOptions<NestRequest, NestResponse>, 'limit'>;

/**
 * Options of `SluiceModule.forRoot(options)` (and what `forRootAsync`'s factory returns):
 * the core's HTTP options (the same object `rateLimit(options)` takes on every adapter)
 * for the **global** limit, which every `@Throttle` also takes its other options from,
 * plus two of Nest's own.
 *
 * @example
 * SluiceModule.forRoot({ limit: 'throttle:60,1', headers: 'draft-8' })
 */
export interface SluiceModuleOptions extends ThrottleOptions {
  /**
   * The global limit, applied to every route the guard sees (one bucket per subject across
   * all routes, route segment `*`): a throttle string, a `Limit`, an array of them, or
   * `false` for none (only `@Throttle` routes are limited).
   * @default 'throttle:60,1' (Laravel's default)
   */
  limit?: LimitInput | false;
  /**
   * Register `SluiceGuard` as a global guard (`APP_GUARD`). With `false`, put it where it
   * should run: `@UseGuards(AuthGuard, SluiceGuard)`; a `@Throttle` on a handler the guard
   * does not cover is then a `SluiceConfigError` when the application starts.
   * @default true
   */
  global?: boolean;
  /**
   * The HTTP request and response behind an execution context, for contexts other than
   * plain HTTP (GraphQL resolvers: `GqlExecutionContext.create(context).getContext()`).
   * Return `undefined` to leave a context unlimited.
   * @default HTTP: `switchToHttp()`; GraphQL: the context's `req` and `res` (or `reply`);
   *   WebSocket and microservice contexts: `undefined` (not limited)
   */
  getRequestResponse?: (context: ExecutionContext) => RequestResponse | undefined;
}
