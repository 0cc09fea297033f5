import type { OpenApiHeaderObject, OpenApiResponseObject } from '@sluice/core/http';
import { openApiOfLimiters } from '@sluice/core/http';
import type { RouteOptions } from 'fastify';
import type { Guard } from './guards.js';

/**
 * `openapi: true`: the route's OpenAPI description, as @fastify/swagger reads a route's
 * `schema.response` (a status's `description`, `headers` as JSON Schemas with their
 * `description`, `content` by media type). The description itself is the core's
 * (`openApiOfLimiters`); this file only translates it. See docs/guide/features/openapi.md.
 */

/** Where a hook or handler made by this package keeps the guards it runs. */
const kGuards = Symbol('sluice.fastify.guards');

/**
 * Marks `fn` (an `app.rateLimit()` hook, a `@Throttle` handler) as running `guards`; a copy
 * made by `fn.bind(x)` (`app.get('/a', users.show.bind(users))`) is marked too.
 */
export function markGuards<F extends object>(fn: F, guards: readonly Guard[]): F {
  Object.defineProperty(fn, kGuards, { value: guards });
  const bind = (fn as { bind?: unknown }).bind;
  if (typeof bind === 'function') {
    Object.defineProperty(fn, 'bind', {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        return markGuards(bind.apply(this, args) as object, guards);
      },
    });
  }
  return fn;
}

/** The guards of the `app.rateLimit()` hooks and the `@Throttle` handler of a route. */
export function markedGuards(route: RouteOptions): Guard[] {
  const out: Guard[] = [];
  const r = route as unknown as Record<string, unknown>;
  for (const hook of ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'handler']) {
    const value = r[hook];
    for (const fn of Array.isArray(value) ? value : [value]) {
      const guards = (fn as { [kGuards]?: Guard[] } | undefined)?.[kGuards];
      if (guards !== undefined) out.push(...guards);
    }
  }
  return out;
}

type JsonObject = Record<string, unknown>;

/** The core's header objects as @fastify/swagger reads them: a JSON Schema with a description. */
function fastifyHeaders(headers: Record<string, OpenApiHeaderObject>): JsonObject {
  const out: JsonObject = {};
  for (const [name, h] of Object.entries(headers)) {
    out[name] = { ...h.schema, description: h.description };
  }
  return out;
}

function fastifyResponse(r: OpenApiResponseObject): JsonObject {
  const out: JsonObject = { description: r.description, headers: fastifyHeaders(r.headers) };
  if (r.content !== undefined) out.content = r.content;
  return out;
}

/**
 * Adds the denial responses and the rate-limit headers of `guards` to `route.schema.response`
 * (a copy: a schema object two routes share is not changed): a status the route describes
 * itself is left as it is; the headers go on each of its 2xx responses (its own headers
 * win), or on a `200` `Default Response` when it describes none (what @fastify/swagger
 * shows for a route without a response schema).
 */
export function addOpenApi(route: RouteOptions, guards: readonly Guard[]): void {
  if (guards.length === 0) return;
  const spec = openApiOfLimiters(
    guards.map((g) => ({
      limiter: g.pipeline.limiter,
      customBody: g.build !== undefined || g.thrown,
    })),
  );
  const response: JsonObject = { ...((route.schema?.response as JsonObject | undefined) ?? {}) };
  for (const [status, r] of Object.entries(spec.responses)) {
    if (response[status] === undefined) response[status] = fastifyResponse(r);
  }
  const headers = fastifyHeaders(spec.headers);
  if (Object.keys(headers).length > 0) {
    const ok = Object.keys(response).filter((status) => status.startsWith('2'));
    if (ok.length === 0) response['200'] = { description: 'Default Response', headers };
    for (const status of ok) {
      const own = response[status] as JsonObject;
      response[status] = { ...own, headers: { ...headers, ...(own.headers as JsonObject) } };
    }
  }
  route.schema = { ...route.schema, response };
}
