import { type Duration, parseDuration } from './duration.js';
import { SluiceConfigError } from './errors.js';
import { GcraAlgorithm } from './gcra.js';
import { divide, toFraction } from './rational.js';
import { integerAtLeast, positiveNumber } from './validate.js';

/** Options of {@link tokenBucket}. */
export interface TokenBucketOptions {
  /** Tokens the bucket holds when full: an integer >= 1. Reported as `limit`. */
  capacity: number;
  /** Tokens added per `refillInterval`, continuously: a finite number > 0. */
  refillRate: number;
  /** The interval of `refillRate`: ms or a duration string. Default `'1s'` (1000 ms). */
  refillInterval?: Duration;
}

/**
 * Token bucket: `capacity` tokens, refilled continuously at `refillRate` per
 * `refillInterval`; a request takes `cost` tokens. It is GCRA with
 * T = refillInterval / refillRate and burst = capacity, so it decides exactly like
 * `leakyBucket({ capacity, leakRate: refillRate per second })`. State per key: one number.
 *
 * @throws {@link SluiceConfigError} naming `capacity`, `refillRate` or `refillInterval`.
 */
export function tokenBucket(options: TokenBucketOptions): GcraAlgorithm {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError(
      'options',
      options,
      'an object { capacity, refillRate, refillInterval? }',
    );
  }
  const capacity = integerAtLeast('capacity', options.capacity, 1);
  const refillRate = positiveNumber('refillRate', options.refillRate);
  const intervalMs = parseDuration('refillInterval', options.refillInterval ?? 1000);
  const interval = divide(
    toFraction('refillInterval', intervalMs),
    toFraction('refillRate', refillRate),
    'refillRate',
    refillRate,
  );
  return new GcraAlgorithm(
    interval,
    capacity,
    `tokenBucket(capacity ${capacity}, ${refillRate} per ${intervalMs} ms)`,
  );
}
