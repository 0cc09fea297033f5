import { durationMs } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { divide, type Fraction, reduce, toFraction } from './rational.js';

/**
 * A rate: a number of units per the option's own period (per second for `leakRate`, per
 * `refillInterval` for `refillRate`), or a string `'<count>/<period>'` that carries its
 * period: `'100/h'`, `'100/hour'`, `'5/min'`, `'10/s'`, `'1/1d'`, `'100/15 minutes'`,
 * `'0.5/s'`.
 */
export type Rate = number | string;

/** What a rate option accepts, as error messages say it. */
export const RATE_FORMS =
  "a finite number > 0, or '<count>/<period>' (e.g. '100/h', '100/hour', '5/min', '10/s', " +
  "'1/1d', '100/15 minutes'): <count> a decimal > 0, <period> a duration as the ms package " +
  'reads it (units ms, s, m, h, d, w, y and their long forms), the 1 optional';

// '<count>/<period>': a plain decimal count, then the rest is a duration.
const RATE_TEXT = /^(\d+)(?:\.(\d+))?\/(\S(?:.*\S)?)$/;

/** A rate read by {@link parseRate}. */
export interface ParsedRate {
  /** Units per period, exact. */
  units: Fraction;
  /** The period of a string rate in ms; `undefined` for a number (the option's own period). */
  periodMs: number | undefined;
}

/**
 * Reads a {@link Rate} option at configuration time. A number becomes an exact fraction as
 * `toFraction` says (`100 / 3600` is 1/36); the count of a string is read as an exact
 * decimal, its period with `durationMs` (the `ms` package, as every duration option), with
 * a bare unit meaning one of it (`'h'` is `'1h'`).
 *
 * @throws {@link SluiceConfigError} naming `option` for anything else: 0, a negative or
 *   non-finite number, `'abc'`, `'100/fortnight'`, `'0/h'`, `'100/0s'`, non-strings.
 */
export function parseRate(option: string, value: unknown): ParsedRate {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value <= 0) {
      throw new SluiceConfigError(option, value, RATE_FORMS);
    }
    return { units: toFraction(option, value), periodMs: undefined };
  }
  const text = typeof value === 'string' ? RATE_TEXT.exec(value) : null;
  if (text === null) throw new SluiceConfigError(option, value, RATE_FORMS);
  const [, whole, decimals = '', period] = text as unknown as [string, string, string, string];
  const periodMs = durationMs(/^[a-z]/i.test(period) ? `1${period}` : period);
  const digits = Number(whole + decimals);
  if (periodMs === undefined || digits === 0) {
    throw new SluiceConfigError(option, value, RATE_FORMS);
  }
  return { units: reduce(digits, 10 ** decimals.length, option, value), periodMs };
}

/**
 * The emission interval in ms of `rate` (from {@link parseRate}): its period (or
 * `periodMs` when the rate is a number) divided by its units, exact.
 *
 * @throws {@link SluiceConfigError} naming `option` when the fraction does not fit in 53 bits.
 */
export function rateInterval(
  option: string,
  value: unknown,
  rate: ParsedRate,
  periodMs: number,
): Fraction {
  return divide(toFraction(option, rate.periodMs ?? periodMs), rate.units, option, value);
}
