// Its own file: connect.ts loads connect-redis.ts, and both throw it.

/** A failure to reach the store: exit code 1, said as `sluice: <where> failed: <message>`. */
export class StoreUnreachableError extends Error {
  override readonly name = 'StoreUnreachableError';
}
