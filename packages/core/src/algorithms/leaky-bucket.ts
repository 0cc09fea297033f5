import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames } from '../common/known-options.js';
import { integerAtLeast } from '../common/validate.js';
import { GcraAlgorithm } from './gcra.js';
import { parseRate, type Rate, rateInterval } from './rate.js';

/** Options of {@link leakyBucket}. */
export interface LeakyBucketOptions {
  /** Requests the bucket holds: an integer >= 1. Reported as `limit`. */
  capacity: number;
  /**
   * Requests leaking out, continuously: a finite number > 0 per **second** (`0.5`,
   * `100 / 3600`), or a string with its own period (`'100/h'`, `'100/hour'`, `'5/min'`,
   * `'10/s'`, `'1/1d'`). Any size, kept exact (see {@link leakyBucket}).
   */
  leakRate: Rate;
}

/**
 * The leaky bucket as a meter (the "funnel"): `capacity` requests, leaking `leakRate`
 * continuously, with no whole-unit gate. It is GCRA with T = period / count (1000 / leakRate
 * ms for a number) and burst = capacity, so `leakyBucket({ capacity: C, leakRate: '100/h' })`
 * decides exactly like `gcra({ rate: 100, period: '1h', burst: C })` (T = 36 000 ms), and
 * `leakyBucket({ capacity: C, leakRate: r })` like `cellThrottle(C - 1, r, 1)`. State per
 * key: one number. Lua twin: the GCRA one (params `[intervalTicks, ticksPerMs, capacity]`).
 *
 * Exactness: a string's count is an exact decimal and its period a duration (`ms`
 * package); a number becomes the simplest fraction within 2^-50 of it (`toFraction`:
 * `100 / 3600` is 1/36, `0.1` is 1/10), so the rate is a fraction and T is exact. Any rate
 * whose T fits in 53-bit terms is accepted (1 per year up to about 1e15 per second); the
 * engine is exact while T's denominator in ms is at most 2048 (see `GcraAlgorithm`).
 *
 * @example
 * ```ts
 * leakyBucket({ capacity: 10, leakRate: '100/h' }); // leaks one request every 36 s
 * leakyBucket({ capacity: 10, leakRate: 100 / 3600 }); // the same: 100/3600 per second
 * leakyBucket({ capacity: 5, leakRate: 0.5 }); // one every 2 s
 * ```
 *
 * @throws {@link SluiceConfigError} naming an unknown option, `capacity` (not an integer >= 1, or a refill time
 *   from empty, capacity x T, above 5e13 ms: about 1584 years) or `leakRate`
 *   (0, negative, NaN, Infinity, an unparsable string such as `'abc'` or `'100/fortnight'`,
 *   or a rate whose fraction does not fit in 53 bits).
 */
export function leakyBucket(options: LeakyBucketOptions): GcraAlgorithm {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an object { capacity, leakRate }');
  }
  checkOptionNames(options, ['capacity', 'leakRate'], 'leakyBucket()');
  const capacity = integerAtLeast('capacity', options.capacity, 1);
  const leakRate = options.leakRate;
  const rate = parseRate('leakRate', leakRate);
  const interval = rateInterval('leakRate', leakRate, rate, 1000);
  const shown = typeof leakRate === 'string' ? leakRate : `${leakRate}/s`;
  return new GcraAlgorithm(
    interval,
    capacity,
    `leakyBucket(capacity ${capacity}, leaking ${shown})`,
    'capacity',
  );
}
