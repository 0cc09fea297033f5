import { AdaptiveConcurrency } from '../adaptive/adaptive-concurrency.js';
import { AdaptiveAlgorithm } from '../adaptive/adaptive-gate.js';
import { type AdaptiveOptions, parseAdaptiveOptions } from '../adaptive/options.js';
import type { Algorithm } from '../algorithms/algorithm.js';
import { type CalendarUnit, NOMINAL_MS, parseCalendar } from '../algorithms/calendar.js';
import { calendarQuota } from '../algorithms/calendar-window.js';
import { DEFAULT_LEASE_MS } from '../algorithms/concurrency.js';
import { type PenaltyOptions, parsePenalty, penalty } from '../algorithms/penalty.js';
import type { Duration } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { integerAtLeast } from '../common/validate.js';
import { deriveLimit, Limit, makeLimit, PENALTY_ALGORITHM, PLAIN_LIMIT } from './limit.js';

/**
 * `Limit`'s calendar quotas, `Limit.adaptive` and `blockFor` (documented on the class),
 * defined on it here, where @sluice/core exports `Limit` from: the core's own modules import
 * limit.ts, so an app bundled without a calendar quota, an adaptive limit or a penalty (a
 * Worker limited by throttle strings) leaves this code, the calendar windows, luxon's loader,
 * the adaptive controllers and the penalty algorithm out of its bundle. Defined as class
 * methods are (not enumerable).
 */
function calendar(maxAttempts: number, unit: CalendarUnit, options: unknown): Limit {
  const n = integerAtLeast('maxAttempts', maxAttempts, 1);
  const period = parseCalendar(unit, options);
  return makeLimit({
    maxAttempts: n,
    periodMs: NOMINAL_MS[unit],
    ...PLAIN_LIMIT,
    calendar: period,
    calendarAlgorithm: (quota) => calendarQuota(quota, period),
  });
}

const method = (value: (...args: never[]) => Limit) => ({
  value,
  writable: true,
  configurable: true,
  enumerable: false,
});

Object.defineProperties(Limit, {
  perCalendarDay: method(function perCalendarDay(maxAttempts: number, options?: unknown) {
    return calendar(maxAttempts, 'day', options);
  }),
  perCalendarWeek: method(function perCalendarWeek(maxAttempts: number, options?: unknown) {
    return calendar(maxAttempts, 'week', options);
  }),
  perCalendarMonth: method(function perCalendarMonth(maxAttempts: number, options?: unknown) {
    return calendar(maxAttempts, 'month', options);
  }),
  adaptive: method(function adaptive(options: AdaptiveOptions<never> = {}) {
    const config = parseAdaptiveOptions(options);
    const algorithm = new AdaptiveAlgorithm(new AdaptiveConcurrency(config));
    return makeLimit({
      maxAttempts: config.initial,
      periodMs: DEFAULT_LEASE_MS,
      ...PLAIN_LIMIT,
      concurrent: true,
      adaptive: algorithm,
    });
  }),
});

Object.defineProperty(
  Limit.prototype,
  'blockFor',
  method(function blockFor(this: Limit, duration: Duration, options: PenaltyOptions = {}) {
    if (this.concurrent || this.unlimited || this.calendar !== undefined) {
      throw new SluiceConfigError(
        'blockFor',
        duration,
        'a rate limit (not a concurrency limit, a calendar quota or Limit.none())',
      );
    }
    const p = parsePenalty(duration, options);
    // The wrapper limitAlgorithm applies (limit.ts imports no penalty.ts).
    Object.defineProperty(p, PENALTY_ALGORITHM, { value: (inner: Algorithm) => penalty(inner, p) });
    return deriveLimit(this, { penalty: p });
  }),
);

export { Limit };
