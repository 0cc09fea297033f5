import { AdaptiveConcurrency } from '../adaptive/adaptive-concurrency.js';
import { AdaptiveAlgorithm } from '../adaptive/adaptive-gate.js';
import { type AdaptiveOptions, parseAdaptiveOptions } from '../adaptive/options.js';
import { type CalendarUnit, NOMINAL_MS, parseCalendar } from '../algorithms/calendar.js';
import { calendarQuota } from '../algorithms/calendar-window.js';
import { DEFAULT_LEASE_MS } from '../algorithms/concurrency.js';
import { integerAtLeast } from '../common/validate.js';
import { Limit, makeLimit, PLAIN_LIMIT } from './limit.js';

/**
 * `Limit`'s calendar quotas and `Limit.adaptive` (documented on the class), defined on it
 * here, where @sluice/core exports `Limit` from: the core's own modules import limit.ts, so
 * an app bundled without a calendar quota or an adaptive limit (a Worker limited by throttle
 * strings) leaves this code, the calendar windows, luxon's loader and the adaptive
 * controllers out of its bundle. Defined as class methods are (not enumerable).
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

export { Limit };
