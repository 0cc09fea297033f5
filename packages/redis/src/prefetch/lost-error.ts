/**
 * The rejection of `RedisStore.close()` when units held by its prefetch could not be given
 * back (the client was closed before the store, or Redis did not answer): they stay charged
 * in Redis until the key's quota refills. Says how many units of how many keys, never which.
 *
 * @example
 * ```ts
 * try {
 *   await store.close();
 * } catch (error) {
 *   if (error instanceof PrefetchLostError) console.warn(error.message); // e.g. 99 units of 1 key
 * }
 * await client.quit();
 * ```
 */
export class PrefetchLostError extends Error {
  /** Units left charged in Redis. */
  readonly units: number;
  /** Keys they belong to. */
  readonly keys: number;

  constructor(units: number, keys: number, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `sluice: RedisStore.close() could not give back ${units} prefetched unit${units === 1 ? '' : 's'} of ${keys} key${keys === 1 ? '' : 's'} (${why}): they stay charged until the quota refills; close the store before the client`,
      { cause },
    );
    this.name = 'PrefetchLostError';
    this.units = units;
    this.keys = keys;
  }
}
