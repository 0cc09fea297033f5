import type { LimitInput } from '@sluice/core';
import { type MethodDecorator, methodDecorator } from '@sluice/core/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { guard, runGuards } from './guards.js';
import { markGuards } from './openapi.js';
import type { RouteRateLimitOptions } from './types.js';

/**
 * `@Throttle(limit, options?)`: limits a Fastify handler method `(request, reply)` of a
 * controller class (as @nestjs/throttler's `@Throttle`; limits as Laravel `ThrottleRequests`).
 * The wrapped handler checks `limit` before running: a denied request gets the 429 answer
 * (or `errorResponseBuilder`'s) and the method does not run.
 *
 * Independent of any plugin registration: options are not inherited (pass `store`, `clock`…
 * here). The key has the matched route (`GET /users/:id`); a key a global limit shares is
 * charged once. Works as a TC39 and a legacy decorator.
 *
 * @param limit - a throttle string (`'throttle:10,1'`, `'throttle:api'`, `'10/s'`), a
 *   `Limit`, or an array of them.
 * @param options - as `config: { rateLimit: { … } }` (see {@link RouteRateLimitOptions}).
 * @throws `SluiceConfigError` (from @sluice/core) when called with an invalid limit or option.
 * @example class Users { @Throttle('throttle:10,1') show(request, reply) { … } }
 */
export function Throttle(limit: LimitInput, options: RouteRateLimitOptions = {}): MethodDecorator {
  const g = guard({ ...options, limit }, 'route', '@Throttle()');
  return methodDecorator((method) => {
    const wrapped = function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
      const passed = runGuards([g], request, reply);
      if (passed === true) return method.call(this, request, reply);
      if (passed === false) return reply;
      return passed.then((ok) => {
        if (!ok) return reply;
        const out = method.call(this, request, reply);
        // A handler that answers with reply.send(): wait for the reply (Fastify's `return reply`).
        return out === undefined ? reply : out;
      });
    };
    return markGuards(wrapped, [g]);
  });
}
