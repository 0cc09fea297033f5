import type { LimitInput } from '@sluice/core';
import { type MethodDecorator, methodDecorator } from '@sluice/core/http';
import type { NextFunction, Request, Response } from 'express';
import { throttle } from './rate-limit.js';
import type { ExpressRateLimitOptions } from './types.js';

/**
 * `@Throttle(limit, options?)`: limits an Express handler method `(req, res, next)` of a
 * controller class, as `throttle(limit, options)` mounted before it would (as in
 * @nestjs/throttler). Works as a TC39 decorator and with `experimentalDecorators`.
 *
 * The limiter is created once, when the class is defined (so a bad limit throws
 * `SluiceConfigError` then). A denied request gets the 429 answer and the method does not
 * run. An allowed one runs the method with the same `this` and arguments; with a
 * synchronous store (`MemoryStore`) the method runs synchronously and its return value (a
 * promise, for Express 5's error handling) is returned; with an asynchronous store a
 * rejected promise it returns is passed to `next(err)`.
 *
 * Mount the method itself (`app.get('/users/:id', users.show)`) or a bound copy; the key's
 * route is Express's matched route.
 *
 * @param limit - a throttle string, a `Limit`, or an array of them.
 * @param options - the options of `throttle`.
 */
export function Throttle(
  limit: LimitInput,
  options?: Omit<ExpressRateLimitOptions, 'limit'>,
): MethodDecorator {
  const middleware = throttle(limit, options);
  return methodDecorator(
    (method) =>
      function (this: unknown, req: Request, res: Response, next: NextFunction): unknown {
        let sync = true;
        let result: unknown;
        middleware(req, res, (err?: unknown) => {
          if (err !== undefined) return next(err);
          result = method.call(this, req, res, next);
          if (!sync && result instanceof Promise) result.then(undefined, next);
        });
        sync = false;
        return result;
      },
  );
}
