import { type Duration, parseDuration } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames } from '../common/known-options.js';
import { integerAtLeast } from '../common/validate.js';
import { GcraAlgorithm } from './gcra.js';
import { parseRate, type Rate, rateInterval } from './rate.js';

/** Options of {@link tokenBucket}. */
export interface TokenBucketOptions {
  /** Tokens the bucket holds when full: an integer >= 1. Reported as `limit`. */
  capacity: number;
  /**
   * Tokens added continuously: a finite number > 0 per `refillInterval` (`3`, `100 / 3600`),
   * or a string with its own period (`'100/h'`, `'5/min'`, `'10/s'`, `'1/1d'`), which
   * then takes no `refillInterval`. Any size, kept exact (see {@link tokenBucket}).
   */
  refillRate: Rate;
  /**
   * The interval of a numeric `refillRate`: ms or a duration string. Default `'1s'`
   * (1000 ms). Not allowed with a string `refillRate`.
   */
  refillInterval?: Duration;
}

/**
 * Token bucket: `capacity` tokens, refilled continuously at `refillRate` (per
 * `refillInterval`, or per the string's own period); a request takes `cost` tokens. It is
 * GCRA with T = refillInterval / refillRate and burst = capacity, so
 * `tokenBucket({ capacity: C, refillRate: '100/h' })` decides exactly like
 * `gcra({ rate: 100, period: '1h', burst: C })` and like
 * `leakyBucket({ capacity: C, leakRate: '100/h' })`. State per key: one number. Lua twin:
 * the GCRA one (params `[intervalTicks, ticksPerMs, capacity]`).
 *
 * Exactness: as {@link leakyBucket}: a number becomes the simplest fraction within 2^-50 of
 * it (`100 / 3600` is 1/36), a string's count is an exact decimal.
 *
 * @example
 * ```ts
 * tokenBucket({ capacity: 100, refillRate: '100/h' }); // a token every 36 s
 * tokenBucket({ capacity: 100, refillRate: 100, refillInterval: '1h' }); // the same
 * tokenBucket({ capacity: 20, refillRate: 5 }); // 5 tokens per second
 * ```
 *
 * @throws {@link SluiceConfigError} naming an unknown option, `capacity` (not an integer >= 1, or a refill time
 *   from empty, capacity x T, above 5e13 ms: about 1584 years), `refillRate`
 *   (0, negative, NaN, Infinity, an unparsable string such as `'abc'` or `'100/fortnight'`,
 *   or a rate whose fraction does not fit in 53 bits) or `refillInterval` (not a duration
 *   > 0, or given with a string `refillRate`).
 */
export function tokenBucket(options: TokenBucketOptions): GcraAlgorithm {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError(
      'options',
      options,
      'an object { capacity, refillRate, refillInterval? }',
    );
  }
  checkOptionNames(options, ['capacity', 'refillRate', 'refillInterval'], 'tokenBucket()');
  const capacity = integerAtLeast('capacity', options.capacity, 1);
  const refillRate = options.refillRate;
  const rate = parseRate('refillRate', refillRate);
  if (rate.periodMs !== undefined && options.refillInterval !== undefined) {
    throw new SluiceConfigError(
      'refillInterval',
      options.refillInterval,
      `no refillInterval with a refillRate that has its own period (${refillRate})`,
    );
  }
  const intervalMs = parseDuration('refillInterval', options.refillInterval ?? 1000);
  const interval = rateInterval('refillRate', refillRate, rate, intervalMs);
  const shown = typeof refillRate === 'string' ? refillRate : `${refillRate} per ${intervalMs} ms`;
  return new GcraAlgorithm(
    interval,
    capacity,
    `tokenBucket(capacity ${capacity}, ${shown})`,
    'capacity',
  );
}
