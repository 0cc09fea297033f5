import type { LimitInput } from '@sluice/core';
import { type MethodDecorator, methodDecorator } from '@sluice/core/http';
import type { Context, Next } from 'koa';
import { type KoaRateLimitOptions, throttle } from './rate-limit.js';

/**
 * `@Throttle(limit, options?)`: limits a class-based Koa handler `(ctx, next)` (as
 * @nestjs/throttler's `@Throttle`). The decorated method runs only when the request is
 * allowed; a denied request gets the same 429 answer as {@link throttle}. The route in the
 * key is @koa/router's matched route when the handler is mounted on a router, else `'*'`.
 * Works as a TC39 decorator (TypeScript 5 default) and with `experimentalDecorators`;
 * `this` is kept. Combined with `@SkipThrottle()` in either order, the mark is kept.
 *
 * @param limit - a throttle string, a `Limit`, or an array of them.
 * @param options - as for {@link throttle}.
 * @throws `SluiceConfigError` when the class is defined, for an invalid limit or option.
 */
export function Throttle(limit: LimitInput, options?: KoaRateLimitOptions): MethodDecorator {
  const check = throttle(limit, options);
  return methodDecorator((method) => {
    const wrapped = function (this: unknown, ctx: Context, next: Next): unknown {
      return check(ctx, () => Promise.resolve(method.call(this, ctx, next)));
    };
    return wrapped;
  });
}
