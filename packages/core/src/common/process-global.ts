/**
 * The process-wide value named `name`, made by `make` the first time any copy of
 * `@sluice/core` asks for it. Kept on `globalThis` under `Symbol.for('sluice.v0.<name>')`, so
 * the ESM and the CommonJS builds (a process can load both: an ESM app that `require`s a
 * CommonJS library, or the reverse) share one default `throttles` registry and one set of
 * default stores. The key carries the major version: copies that may disagree on the
 * value's shape do not share it. The property is not enumerable.
 *
 * @param name - the value's name, e.g. `'throttles'`.
 * @param make - builds the value; called at most once per process.
 *
 * @example
 * ```ts
 * export const throttles = processGlobal('throttles', () => new ThrottleRegistry());
 * ```
 */
export function processGlobal<T>(name: string, make: () => T): T {
  const key = Symbol.for(`sluice.v0.${name}`);
  const slots = globalThis as unknown as Record<symbol, T>;
  if (!Object.hasOwn(slots, key)) {
    Object.defineProperty(slots, key, { value: make(), enumerable: false });
  }
  return slots[key] as T;
}

/**
 * Makes `instanceof Class` true for instances made by any copy of `@sluice/core` (its ESM
 * and CommonJS builds each define the class): instances carry the brand
 * `Symbol.for('sluice.v0.<name>')` on their prototype, and `instanceof` checks it. Also
 * names the class `name` (`Class.name`), whatever the bundler called it.
 *
 * @example
 * ```ts
 * brandClass(Limit, 'Limit'); // an ESM Limit is `instanceof` the CommonJS Limit too
 * ```
 */
export function brandClass(cls: { prototype: object }, name: string): void {
  // The bundler renames a class that refers to itself (`class _Limit`): `name` is the
  // class's own again, as `constructor.name` and Node's printing of an instance show it.
  Object.defineProperty(cls, 'name', { value: name, configurable: true });
  const brand = Symbol.for(`sluice.v0.${name}`);
  Object.defineProperty(cls.prototype, brand, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value: (value: unknown): boolean =>
      (typeof value === 'object' || typeof value === 'function') &&
      value !== null &&
      (value as Record<symbol, unknown>)[brand] === true,
  });
}
