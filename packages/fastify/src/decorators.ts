import { type LimitInput, type MethodDecorator, methodDecorator } from '@sluice/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { guard, runGuards } from './plugin.js';
import type { RouteRateLimitOptions } from './types.js';

export { SkipThrottle } from '@sluice/core';

/**
 * `@Throttle(limit, options?)`: limits a Fastify handler method `(request, reply)` of a
 * controller class (as @nestjs/throttler's `@Throttle`; limits as Laravel `ThrottleRequests`).
 * The wrapped handler checks `limit` before running: a denied request gets the 429 answer
 * (or `errorResponseBuilder`'s) and the method does not run.
 *
 * ```ts
 * class Users {
 *   @Throttle('throttle:10,1') show(request: FastifyRequest, reply: FastifyReply) { … }
 *   @SkipThrottle() health() { … }
 * }
 * app.get('/users/:id', users.show);
 * ```
 *
 * Independent of any plugin registration: options are not inherited (pass `store`, `clock`…
 * here). The route key is `METHOD /pattern` of the matched route, read per request; a key
 * the global limit shares is charged once. Works as a TC39 and a legacy decorator.
 *
 * @param limit - a throttle string (`'throttle:10,1'`, `'throttle:api'`, `'10/s'`), a
 *   `Limit`, or an array of them.
 * @param options - as `config: { rateLimit: { … } }` (see {@link RouteRateLimitOptions}).
 * @throws `SluiceConfigError` (from @sluice/core) when called with an invalid limit or option.
 */
export function Throttle(limit: LimitInput, options: RouteRateLimitOptions = {}): MethodDecorator {
  const g = guard({ ...options, limit });
  return methodDecorator((method) => {
    const wrapped = function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
      const passed = runGuards([g], undefined, request, reply);
      if (passed === true) return method.call(this, request, reply);
      if (passed === false) return reply;
      return passed.then((ok) => {
        if (!ok) return reply;
        const out = method.call(this, request, reply);
        // A handler that answers with reply.send(): wait for the reply (Fastify's `return reply`).
        return out === undefined ? reply : out;
      });
    };
    return wrapped;
  });
}
