/**
 * A store that cannot decide yet because what it needs is not there: its tables or
 * functions were never created (`PostgresStore` without `await store.migrate()`), or were
 * dropped. {@link Store.ready} rejects with it at start-up; on the request path a store
 * call rejects with it, the limiter's `onStoreError` policy answers the request, and the
 * store failure is logged once per outage with this whole message (never cut off: it
 * names the fix).
 *
 * Its message names the store, what is missing by kind (the table's name, never a key),
 * and the fix.
 *
 * @example
 * ```ts
 * throw new StoreNotReadyError('PostgresStore', 'the table "public"."sluice_limits" does not exist', 'run `await store.migrate()` once');
 * ```
 */
export class StoreNotReadyError extends Error {
  /** The store's class name, e.g. `'PostgresStore'`. */
  readonly store: string;
  /** What is missing, by kind (e.g. `'the table "public"."sluice_limits" does not exist'`). */
  readonly reason: string;
  /** What to do about it (e.g. ``'run `await store.migrate()` once …'``). */
  readonly fix: string;

  constructor(store: string, reason: string, fix: string) {
    super(`sluice: ${store} is not ready: ${reason}; ${fix}`);
    this.name = 'StoreNotReadyError';
    this.store = store;
    this.reason = reason;
    this.fix = fix;
  }
}

/**
 * Whether `error` is a {@link StoreNotReadyError}, also one made by another copy of
 * @sluice/core (an ESM and a CJS copy in one app): by class, else by name.
 */
export function isStoreNotReadyError(error: unknown): error is StoreNotReadyError {
  return (
    error instanceof StoreNotReadyError ||
    (error instanceof Error &&
      error.name === 'StoreNotReadyError' &&
      typeof (error as StoreNotReadyError).fix === 'string')
  );
}
