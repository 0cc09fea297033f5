import { brandClass } from '../common/process-global.js';

/**
 * The error a store call rejects with when the store took longer than its `timeoutMs` to
 * answer (`RedisStore`, `PostgresStore`). The limiter's `onStoreError` policy then answers
 * the request. One class for every store, exported by `@sluice/core/store` (and re-exported
 * by `@sluice/redis` and `@sluice/postgres`): `instanceof` holds whichever store threw it,
 * and across the ESM and CommonJS builds. The message names the timeout, never a key.
 *
 * @example
 * ```ts
 * import { StoreTimeoutError } from '@sluice/core/store';
 *
 * try {
 *   await limiter.consume(userId);
 * } catch (error) {
 *   if (error instanceof StoreTimeoutError) console.warn(`store slower than ${error.timeoutMs} ms`);
 * }
 * ```
 */
export class StoreTimeoutError extends Error {
  /** The deadline that passed, in **ms** (the store's `timeoutMs`). */
  readonly timeoutMs: number;

  /** @param timeoutMs - the store's `timeoutMs`, in ms. */
  constructor(timeoutMs: number) {
    super(`sluice: the store did not answer within ${timeoutMs} ms`);
    this.name = 'StoreTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}
brandClass(StoreTimeoutError, 'StoreTimeoutError');

/**
 * The rejection of store calls given up before their deadline because what they were sent to
 * stopped answering and its circuit breaker opened (a Redis node, the PostgreSQL database):
 * waiting for their timeout would only hold the requests longer. The limiter's
 * `onStoreError` policy then answers them. One class for every store, exported by
 * `@sluice/core/store` (and re-exported by `@sluice/redis` and `@sluice/postgres`).
 *
 * @example
 * ```ts
 * import { StoreAbandonedError } from '@sluice/core/store';
 *
 * const reject = new StoreAbandonedError('the database');
 * reject.message; // 'sluice: given up: the database stopped answering (its circuit breaker opened)'
 * ```
 */
export class StoreAbandonedError extends Error {
  /**
   * @param what - what stopped answering, for the message (`'its Redis node'`,
   *   `'the database'`); default `'the store'`. Never a key or an address.
   */
  constructor(what = 'the store') {
    super(`sluice: given up: ${what} stopped answering (its circuit breaker opened)`);
    this.name = 'StoreAbandonedError';
  }
}
brandClass(StoreAbandonedError, 'StoreAbandonedError');
