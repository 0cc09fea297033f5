/**
 * Framework-neutral plumbing for the `@Throttle(...)` / `@SkipThrottle()` method decorators
 * that every adapter exports (as in @nestjs/throttler). The adapter supplies how
 * a handler is wrapped; this module makes one decorator work both as a TC39 standard
 * decorator (TypeScript 5+, the default) and as a legacy `experimentalDecorators` one.
 */

import { processGlobal } from '../../common/process-global.js';

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

const nativeBind = Function.prototype.bind;

/** `bind` of a marked handler: the bound copy (`users.health.bind(users)`) keeps the mark. */
function markedBind(this: AnyFunction, ...args: unknown[]): AnyFunction {
  return markSkipThrottle(nativeBind.apply(this, args as [unknown, ...unknown[]]));
}

/**
 * Marks `handler` exempt from global limiters; returns it. A copy made by `handler.bind(x)`
 * (how a controller's method is usually mounted) is marked too: a bound function carries
 * nothing of its target, so the mark is given to it when it is made.
 */
export function markSkipThrottle<F extends AnyFunction>(handler: F): F {
  if (!isThrottleSkipped(handler)) {
    Object.defineProperty(handler, SKIP_THROTTLE, { value: true });
    Object.defineProperty(handler, 'bind', {
      value: markedBind,
      configurable: true,
      writable: true,
    });
    skipMarks.count++;
  }
  return handler;
}

/**
 * A decorator for a method or a whole class (every method of its prototype), usable in both
 * the TC39 and the legacy (`experimentalDecorators`) forms.
 */
export type MethodDecorator = {
  <F extends AnyFunction>(value: F, context: ClassMethodDecoratorContext): F | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: any class
  <C extends abstract new (...args: any[]) => unknown>(
    value: C,
    context: ClassDecoratorContext<C>,
  ): C | undefined;
  (
    target: object,
    propertyKey: string | symbol,
    descriptor: PropertyDescriptor,
  ): PropertyDescriptor | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: any class
  <C extends abstract new (...args: any[]) => unknown>(target: C): C | undefined;
};

/** Replaces every method of `cls.prototype` (its own, not its base classes') by `replace(method)`. */
function decorateMethods(cls: AnyFunction, replace: (method: AnyFunction) => AnyFunction): void {
  const proto = cls.prototype as object | undefined;
  if (proto === undefined || proto === null) return;
  for (const name of Reflect.ownKeys(proto)) {
    if (name === 'constructor') continue;
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (descriptor === undefined || typeof descriptor.value !== 'function') continue;
    Object.defineProperty(proto, name, { ...descriptor, value: replace(descriptor.value) });
  }
}

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
    if (typeof first === 'function' && typeof second === 'object' && second !== null) {
      const kind = (second as { kind?: unknown }).kind;
      // TC39 class decorator: every method of the class.
      if (kind === 'class') {
        decorateMethods(first as AnyFunction, replace);
        return undefined;
      }
      if (kind !== undefined) return replace(first as AnyFunction);
    }
    // Legacy class decorator: called with the class alone.
    if (typeof first === 'function' && second === undefined && descriptor === undefined) {
      decorateMethods(first as AnyFunction, replace);
      return undefined;
    }
    if (descriptor && typeof descriptor.value === 'function') {
      return { ...descriptor, value: replace(descriptor.value as AnyFunction) };
    }
    throw new TypeError('sluice: @Throttle / @SkipThrottle decorate classes and methods only');
  }) as MethodDecorator;
}

/**
 * `@SkipThrottle()` (as @nestjs/throttler's): the method (or every method of a decorated
 * class) is exempt from **global** limits
 * (Express / Koa `rateLimit`, Fastify's plugin registration), on every adapter alike. A
 * `@Throttle(...)` or `throttle(...)` on the same method still applies.
 *
 * @example
 * class Health { @SkipThrottle() check(req, res) { res.send('ok'); } }
 * app.get('/health', health.check.bind(health)); // a bound copy keeps the mark
 * @SkipThrottle() class Probes { live(req, res) {} ready(req, res) {} } // every method
 */
export function SkipThrottle(): MethodDecorator {
  return methodDecorator((method) => markSkipThrottle(method));
}
