import { type Duration, SluiceConfigError } from '@sluice/core';
import { parseDuration } from '@sluice/core/duration';
import { checkOptionNames, optionNames } from '@sluice/core/store';

/** Option `prefetch` of `RedisStore`. */
export interface PrefetchOptions {
  /**
   * The most units of one key's quota a process takes in one script call: an integer >= 1.
   * Fewer are taken as the key nears its limit (a quarter of what is left, at most), and
   * only what a request asks for once fewer than 4 are left.
   */
  units: number;
  /**
   * How long a process keeps units it fetched before it gives back the ones it did not use:
   * ms, or a string (`'100ms'`, `'1s'`), at least 1 ms. Units held are unavailable to other
   * processes for at most this long.
   */
  ttl: Duration;
}

const PREFETCH_OPTIONS = optionNames<PrefetchOptions>({ units: true, ttl: true });

/** A fetch takes at most this fraction of what a key has left (1 / SHARE). */
export const SHARE = 4;

/** {@link PrefetchOptions} once checked. */
export interface PrefetchConfig {
  units: number;
  ttlMs: number;
}

/**
 * Checks option `prefetch` of `RedisStore`: `undefined` (off) or `{ units, ttl }`.
 *
 * @throws {@link SluiceConfigError} naming `prefetch`, `prefetch.units` (an integer >= 1),
 *   `prefetch.ttl` (a duration of at least 1 ms) or an unknown option name.
 */
export function parsePrefetch(value: unknown): PrefetchConfig | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object') {
    throw new SluiceConfigError(
      'prefetch',
      value,
      "an object { units, ttl }, e.g. { units: 50, ttl: '100ms' }",
    );
  }
  checkOptionNames(value, PREFETCH_OPTIONS, 'RedisStore({ prefetch })');
  const { units, ttl } = value as Partial<PrefetchOptions>;
  if (typeof units !== 'number' || !Number.isSafeInteger(units) || units < 1) {
    throw new SluiceConfigError('prefetch.units', units, 'an integer >= 1');
  }
  const ttlMs = parseDuration('prefetch.ttl', ttl);
  if (ttlMs < 1) throw new SluiceConfigError('prefetch.ttl', ttl, 'a duration of at least 1 ms');
  return { units, ttlMs };
}
