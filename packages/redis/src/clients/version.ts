/**
 * The lowest Redis version each part of the store needs, as `[major, minor]`:
 *
 * - decisions (every algorithm's script: `EVALSHA`, `TIME` in scripts, `SET PX`): 5.0;
 * - give-backs (`refund`, all-or-nothing across Cluster slots, the fixed and sliding
 *   windows' refunds): 6.0, for `SET ... KEEPTTL`;
 * - the expiry form of GCRA (`SET ... PXAT`, `PEXPIRETIME`): 7.0; an older server gets the
 *   value form, decided by the script itself (`redis.REDIS_VERSION_NUM`, 7.0+).
 *
 * The store needs the give-backs (below 6.0 every give-back would fail, and through the
 * breaker fail every request), so 6.0 is the lowest it runs on. Valkey reports
 * `redis_version:7.2.4` (every Valkey release is a 7.2 or later Redis).
 */
export const MIN_REDIS_VERSION: readonly [number, number] = [6, 0];

/**
 * Thrown (as the rejection of every call) when the server a `RedisStore` reaches is older
 * than {@link MIN_REDIS_VERSION}: the message names the version found and the one needed,
 * and nothing else of the server (no key, no address, no secret).
 *
 * @example
 * ```ts
 * try {
 *   await store.ready();
 * } catch (error) {
 *   if (error instanceof RedisVersionError) console.error(error.found, error.needed);
 * }
 * ```
 */
export class RedisVersionError extends Error {
  /** The version the server reports, e.g. `'5.0.14'`. */
  readonly found: string;
  /** The lowest version the store runs on, e.g. `'6.0'`. */
  readonly needed: string;

  constructor(found: string) {
    const needed = MIN_REDIS_VERSION.join('.');
    super(
      `sluice: RedisStore needs Redis ${needed} or later (or any Valkey), the server runs Redis ${found}: ` +
        'decisions need 5.0, give-backs (refunds, all-or-nothing across Cluster slots) need 6.0 (SET KEEPTTL), ' +
        'the expiry form of GCRA needs 7.0 (6.x gets the value form)',
    );
    this.name = 'RedisVersionError';
    this.found = found;
    this.needed = needed;
  }
}

/**
 * The `redis_version` of an `INFO server` reply (`'7.0.15'`), or undefined when it has
 * none. Only `major.minor.patch` digits are kept, so nothing else of the reply can reach a
 * message.
 */
export function redisVersionOf(info: string): string | undefined {
  const match = /(?:^|\n)redis_version:(\d+)\.(\d+)(?:\.(\d+))?/.exec(info);
  if (match === null) return undefined;
  return `${match[1]}.${match[2]}${match[3] === undefined ? '' : `.${match[3]}`}`;
}

/** Whether `version` (`'6.2.14'`) is at least {@link MIN_REDIS_VERSION}. */
export function isSupportedVersion(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [needMajor, needMinor] = MIN_REDIS_VERSION;
  return major > needMajor || (major === needMajor && minor >= needMinor);
}
