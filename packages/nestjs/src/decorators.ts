import type { LimitInput } from '@sluice/core';
import { isThrottleSkipped } from '@sluice/core/http';
import { SKIP_THROTTLE_METADATA, THROTTLE_METADATA } from './constants.js';
import { requireModule } from './module-check.js';
import type { ThrottleOptions } from './types.js';

/** One `@Throttle(limit, options)` as the guard reads it. */
export interface ThrottleEntry {
  limit: LimitInput;
  options: ThrottleOptions | undefined;
}

/** A decorator for a controller class or one of its handlers (Nest's legacy decorators). */
export type ClassOrMethodDecorator = ClassDecorator & MethodDecorator;

// Reflect.defineMetadata / getOwnMetadata come from reflect-metadata, which Nest loads.
type MetadataReflect = typeof Reflect & {
  defineMetadata(key: unknown, value: unknown, target: object): void;
  getOwnMetadata(key: unknown, target: object): unknown;
  getMetadata(key: unknown, target: object): unknown;
};
const reflect = Reflect as MetadataReflect;

/** Where a class or method decorator keeps its metadata: the class, or the handler function. */
function targetOf(target: object, descriptor?: PropertyDescriptor): object {
  if (descriptor === undefined) return target;
  if (typeof descriptor.value !== 'function') {
    throw new TypeError('sluice: @Throttle / @SkipThrottle decorate classes and methods only');
  }
  return descriptor.value as object;
}

/**
 * `@Throttle(limit, options?)` on a controller (every handler of it) or on one handler: a
 * per-route limit, keyed by the handler's route pattern (`GET /users/:id`). It **adds** to
 * the module's global limit and to a `@Throttle` on the controller: the request must pass
 * every one (as a per-route limit does on every sluice adapter). @nestjs/throttler's
 * `@Throttle` replaces the global limit instead.
 *
 * The limit is checked when the application starts: a malformed one is a
 * `SluiceConfigError` naming the controller and the handler; so is a `@Throttle` in an
 * application that imports no `SluiceModule` (it would be silently unlimited: the class
 * gets an `onApplicationBootstrap` check, run before its own hook if it has one).
 *
 * @param limit - a throttle string (`'throttle:10,1'`, `'throttle:api'`, `'5/min'`), a
 *   `Limit`, or an array of them.
 * @param options - options for this limit; the others are the module's.
 * @example
 * `@Throttle('throttle:5,1') @Post('login') login() {}`
 */
export function Throttle(limit: LimitInput, options?: ThrottleOptions): ClassOrMethodDecorator {
  const entry: ThrottleEntry = { limit, options };
  return ((target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const where = targetOf(target, descriptor);
    const entries = (reflect.getOwnMetadata(THROTTLE_METADATA, where) as ThrottleEntry[]) ?? [];
    reflect.defineMetadata(THROTTLE_METADATA, [...entries, entry], where);
    // Never silently unlimited: the application fails to start without SluiceModule.
    requireModule(descriptor === undefined ? (target as Function) : target.constructor);
  }) as ClassOrMethodDecorator;
}

/**
 * `@SkipThrottle()` on a controller (every handler of it) or a handler: exempt from the
 * module's **global** limit. A `@Throttle` on the same handler or controller still applies:
 * the one meaning it has on every sluice adapter.
 *
 * @example
 * `@SkipThrottle() @Get('health') health() { return 'ok'; }`
 */
export function SkipThrottle(): ClassOrMethodDecorator {
  return ((target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    reflect.defineMetadata(SKIP_THROTTLE_METADATA, true, targetOf(target, descriptor));
  }) as ClassOrMethodDecorator;
}

/** The `@Throttle` entries of a handler: its controller's (inherited ones too), then its own. */
export function throttlesOf(cls: object, handler: object): ThrottleEntry[] {
  const own = (reflect.getMetadata(THROTTLE_METADATA, cls) as ThrottleEntry[] | undefined) ?? [];
  const mine = (reflect.getOwnMetadata(THROTTLE_METADATA, handler) as ThrottleEntry[]) ?? [];
  return [...own, ...mine];
}

/** Whether a handler is exempt from the global limit (`@SkipThrottle()` on it or its controller). */
export function skipsGlobal(cls: object, handler: object): boolean {
  return (
    reflect.getOwnMetadata(SKIP_THROTTLE_METADATA, handler) === true ||
    reflect.getMetadata(SKIP_THROTTLE_METADATA, cls) === true ||
    isThrottleSkipped(handler)
  );
}
