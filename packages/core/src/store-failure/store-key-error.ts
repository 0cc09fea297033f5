/**
 * A store's rejection of one key's decision, not of the store: the key holds state that the
 * algorithm cannot read (another Redis type, or another algorithm's value, e.g. after a
 * deploy switched a limit from GCRA to a fixed window). The store answered; a limiter's
 * `FailSafeStore` decides that key by its `onStoreError` policy (logging once per
 * algorithm), and neither counts it as a store failure nor opens a circuit breaker: other
 * keys, and the same node's other users, stay decided by the store.
 *
 * Its message names the algorithm by its description and what went wrong by kind; it never
 * carries the key, a user id or a script's source.
 *
 * @example
 * ```ts
 * throw new StoreKeyError('fixedWindow(10 per 60000 ms)', 'the key holds another Redis type');
 * ```
 */
export class StoreKeyError extends Error {
  /** The algorithm's description (`Algorithm.description`), or `''` when unknown. */
  readonly algorithm: string;
  /** What is wrong with the key's state, by kind (no key text, no value). */
  readonly reason: string;

  constructor(algorithm: string, reason: string) {
    super(
      `sluice: a key of limit ${algorithm || '(unknown algorithm)'} holds state its algorithm cannot read (${reason})`,
    );
    this.name = 'StoreKeyError';
    this.algorithm = algorithm;
    this.reason = reason;
  }
}

/**
 * Whether `error` is a {@link StoreKeyError}, also one made by another copy of
 * @sluice/core (an ESM and a CJS copy in one app): by class, else by name.
 */
export function isStoreKeyError(error: unknown): error is StoreKeyError {
  return (
    error instanceof StoreKeyError ||
    (error instanceof Error &&
      error.name === 'StoreKeyError' &&
      typeof (error as StoreKeyError).algorithm === 'string')
  );
}

/**
 * The kind of a script error on one key, from its Redis or Lua message: never the message
 * itself (it may quote the script).
 */
export function keyErrorReason(message: string): string {
  if (message.includes('WRONGTYPE')) return 'the key holds another Redis type';
  return 'the key holds a value its algorithm does not read';
}
