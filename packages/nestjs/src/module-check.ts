import { SluiceConfigError } from '@sluice/core';

/**
 * `@Throttle` without `SluiceModule`: nothing would read it and the route would be silently
 * unlimited. `@Throttle` gives its class an `onApplicationBootstrap` check (wrapping the
 * class's own), and `SluiceExplorer` marks each instance it has planned when the module
 * starts (`onModuleInit`, before any bootstrap hook): an unmarked instance at bootstrap means
 * no SluiceModule saw it, and the application does not start.
 */
const EXPLORED = Symbol.for('sluice.v0.nestjs.explored');
const CHECKED = Symbol.for('sluice.v0.nestjs.throttleChecked');

/** Marks `instance` (a controller or provider) as planned by a SluiceModule's explorer. */
export function markExplored(instance: unknown): void {
  if (instance !== null && typeof instance === 'object' && !Object.hasOwn(instance, EXPLORED)) {
    Object.defineProperty(instance, EXPLORED, { value: true });
  }
}

type Hook = (this: object, ...args: unknown[]) => unknown;

/**
 * Gives `cls` (a class with a `@Throttle`) a bootstrap check, once: at
 * `onApplicationBootstrap`, an instance no SluiceModule planned throws a
 * {@link SluiceConfigError} naming `@Throttle`, the class, and what to import. A hook the
 * class has (or inherits) runs after the check, as before.
 */
export function requireModule(cls: Function): void {
  const proto = cls.prototype as Record<string | symbol, unknown> | undefined;
  if (proto === undefined || proto === null || Object.hasOwn(proto, CHECKED)) return;
  Object.defineProperty(proto, CHECKED, { value: true });
  const own = proto.onApplicationBootstrap as Hook | undefined;
  const name = cls.name || 'a class';
  function onApplicationBootstrap(this: object, ...args: unknown[]): unknown {
    if ((this as Record<symbol, unknown>)[EXPLORED] !== true) {
      throw new SluiceConfigError('@Throttle', undefined, '', {
        message:
          `sluice: ${name} has a @Throttle but no SluiceModule is imported, so nothing would ` +
          'limit it: import SluiceModule.forRoot({ ... }) (or forRootAsync) in the root module ' +
          "(limit: false for no global limit; @Throttle's limits then apply alone)",
      });
    }
    return typeof own === 'function' ? own.apply(this, args) : undefined;
  }
  Object.defineProperty(proto, 'onApplicationBootstrap', {
    value: onApplicationBootstrap,
    writable: true,
    configurable: true,
  });
}
