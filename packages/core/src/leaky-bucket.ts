import { SluiceConfigError } from './errors.js';
import { GcraAlgorithm } from './gcra.js';
import { divide, toFraction } from './rational.js';
import { integerAtLeast, positiveNumber } from './validate.js';

/** Options of {@link leakyBucket}. */
export interface LeakyBucketOptions {
  /** Requests the bucket holds: an integer >= 1. Reported as `limit`. */
  capacity: number;
  /** Requests leaking out per **second**, continuously: a finite number > 0 (e.g. 0.5). */
  leakRate: number;
}

/**
 * The leaky bucket as a meter (the "funnel"): `capacity` requests, leaking `leakRate` per
 * second continuously, with no whole-unit gate. It is GCRA with T = 1000 / leakRate ms and
 * burst = capacity, so `leakyBucket({ capacity: C, leakRate: r })` decides exactly like
 * `cellThrottle(C - 1, r, 1)`. State per key: one number.
 *
 * @throws {@link SluiceConfigError} naming `capacity` or `leakRate`.
 */
export function leakyBucket(options: LeakyBucketOptions): GcraAlgorithm {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an object { capacity, leakRate }');
  }
  const capacity = integerAtLeast('capacity', options.capacity, 1);
  const leakRate = positiveNumber('leakRate', options.leakRate);
  const interval = divide(
    { num: 1000, den: 1 },
    toFraction('leakRate', leakRate),
    'leakRate',
    leakRate,
  );
  return new GcraAlgorithm(
    interval,
    capacity,
    `leakyBucket(capacity ${capacity}, leaking ${leakRate}/s)`,
  );
}
