/**
 * Framework-neutral plumbing for the `@Throttle(...)` / `@SkipThrottle()` method decorators
 * that every adapter exports (as in @nestjs/throttler). The adapter supplies how
 * a handler is wrapped; this module makes one decorator work both as a TC39 standard
 * decorator (TypeScript 5+, the default) and as a legacy `experimentalDecorators` one.
 */

import { processGlobal } from '../common/process-global.js';

// biome-ignore lint/suspicious/noExplicitAny: handlers of any framework signature
type AnyFunction = (...args: any[]) => any;

/** Marks a handler exempt from the global limiter (`@SkipThrottle()`). */
export const SKIP_THROTTLE: unique symbol = Symbol.for('sluice.skipThrottle');

/** Whether `handler` was marked by `@SkipThrottle()` (or {@link markSkipThrottle}). */
export function isThrottleSkipped(handler: unknown): boolean {
  return (
    typeof handler === 'function' &&
    (handler as unknown as Record<symbol, unknown>)[SKIP_THROTTLE] === true
  );
}

/**
 * How many handlers were ever marked: while 0, a global limiter need not look for marks. One
 * count per process, whichever build (ESM or CommonJS) marked the handler.
 */
const skipMarks = processGlobal('skipMarks', () => ({ count: 0 }));

/**
 * Whether any handler was ever marked with `@SkipThrottle()` in this process: adapters
 * whose global limiter must look the request's handlers up (Express, Koa) do it only then.
 */
export function anySkipMarks(): boolean {
  return skipMarks.count > 0;
}

/** Marks `handler` exempt from global limiters; returns it. */
export function markSkipThrottle<F extends AnyFunction>(handler: F): F {
  if (!isThrottleSkipped(handler)) {
    Object.defineProperty(handler, SKIP_THROTTLE, { value: true });
    skipMarks.count++;
  }
  return handler;
}

/** A method decorator usable in both the TC39 and the legacy (`experimentalDecorators`) forms. */
export type MethodDecorator = {
  <F extends AnyFunction>(value: F, context: ClassMethodDecoratorContext): F | undefined;
  (
    target: object,
    propertyKey: string | symbol,
    descriptor: PropertyDescriptor,
  ): PropertyDescriptor | undefined;
};

/**
 * Builds a method decorator from a function that replaces the method (`wrap`) — e.g. an
 * adapter's `Throttle(limit)` wraps the handler with its limit check. The replacement keeps
 * a `@SkipThrottle()` mark the method had.
 */
export function methodDecorator(wrap: (method: AnyFunction) => AnyFunction): MethodDecorator {
  // A wrapper keeps the method's `@SkipThrottle()` mark, whichever decorator runs first.
  const replace = (method: AnyFunction): AnyFunction => {
    const wrapped = wrap(method);
    return wrapped !== method && isThrottleSkipped(method) ? markSkipThrottle(wrapped) : wrapped;
  };
  return ((first: unknown, second: unknown, descriptor?: PropertyDescriptor) => {
    if (
      typeof first === 'function' &&
      typeof second === 'object' &&
      second !== null &&
      'kind' in second
    ) {
      return replace(first as AnyFunction);
    }
    if (descriptor && typeof descriptor.value === 'function') {
      return { ...descriptor, value: replace(descriptor.value as AnyFunction) };
    }
    throw new TypeError('sluice: @Throttle / @SkipThrottle decorate methods only');
  }) as MethodDecorator;
}

/**
 * `@SkipThrottle()` (as @nestjs/throttler's): the method is exempt from **global** limits
 * (Express / Koa `rateLimit`, Fastify's plugin registration), on every adapter alike. A
 * `@Throttle(...)` or `throttle(...)` on the same method still applies.
 *
 * @example
 * class Health { @SkipThrottle() check(req, res) { res.send('ok'); } }
 */
export function SkipThrottle(): MethodDecorator {
  return methodDecorator((method) => markSkipThrottle(method));
}
