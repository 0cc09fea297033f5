import { durationMs, wholeMs } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { Limit } from './limit.js';

/**
 * What a throttle string means (see {@link parseThrottle}):
 *
 * - `{ kind: 'limits', limits }`: fixed limits (one for every string form today);
 * - `{ kind: 'named', name }`: a named limiter (`'throttle:api'`) to look up in a
 *   `ThrottleRegistry` (Laravel `RateLimiter::for`).
 */
export type ThrottleSpec = { kind: 'limits'; limits: Limit[] } | { kind: 'named'; name: string };

/** The pattern of {@link THROTTLE_NAME}, without anchors. */
const NAME = String.raw`[A-Za-z][\w.-]{0,63}`;

/**
 * The name of a named limiter or a key prefix: an ASCII letter, then up to 63 ASCII
 * letters, digits, `_`, `.` or `-` (`'api'`, `'login'`, `'uploads-v2'`, `'api.v1'`): a
 * limit name (see `LIMIT_NAME`) that starts with a letter, which keeps names apart from
 * counts in a throttle string.
 */
export const THROTTLE_NAME = new RegExp(`^${NAME}$`);

// 'throttle:<count>[,<decayMinutes>[,<prefix>]]' (Laravel ThrottleRequests parameters).
const LARAVEL_COUNTS = new RegExp(String.raw`^throttle:(\d+)(?:,(\d+)(?:,(${NAME}))?)?$`);
// 'throttle:<name>' (Laravel ThrottleRequests with a named limiter).
const LARAVEL_NAMED = new RegExp(`^throttle:(${NAME})$`);
// '<count>/<duration>': '60/min', '10/s', '100/15m', '3/500ms', '100/week'. The duration is
// the one grammar of every duration option (parseDuration's), with a unit; none: one unit.
const SHORTHAND = /^(\d+)\/(\S(?:.*\S)?)$/;

const FORMS =
  "a throttle string: 'throttle:<count>,<minutes>[,<prefix>]' (e.g. 'throttle:60,1'), " +
  "'throttle:<name>' (a named limiter) or '<count>/<duration>' (e.g. '60/min', '100/15m', " +
  "'3/500ms', '100/week': a unit as maxWait takes), or Limit.per(count, periodMs)";

/**
 * Parses a throttle string once, at configuration time, never per request. Accepted forms:
 *
 * | text | meaning |
 * |---|---|
 * | `'throttle:60,1'` | 60 requests per 1 **minute** (Laravel `ThrottleRequests`: `maxAttempts,decayMinutes`) |
 * | `'throttle:60'` | 60 requests per minute (Laravel's default `decayMinutes = 1`) |
 * | `'throttle:60,1,uploads'` | the same, with key prefix `uploads` ({@link Limit.name}) |
 * | `'throttle:api'` | the named limiter `api` (Laravel `RateLimiter::for('api', …)`) |
 * | `'60/min'`, `'10/s'`, `'1000/hour'`, `'5000/day'` | `<count>` per one unit |
 * | `'100/15m'`, `'100/15 minutes'`, `'3/500ms'`, `'100/week'`, `'10/1.5h'` | `<count>` per a duration |
 *
 * The duration after the `/` is read as every duration option reads one (`parseDuration`,
 * the `ms` package's grammar: `maxWait`, `cooldownMs`...), with a unit: `ms`, `msec`,
 * `millisecond(s)`, `s`, `sec(s)`, `second(s)`, `m`, `min(s)`, `minute(s)`, `h`, `hr(s)`,
 * `hour(s)`, `d`, `day(s)`, `w`, `week(s)`, `y`, `yr(s)`, `year(s)`, any letter case; a unit
 * alone is one of it (`'60/min'`). A bare number (`'60/1'`) is refused: a Laravel user reads
 * it as minutes, the `ms` package as milliseconds. The period must be a whole number of ms
 * > 0. Counts and minutes are whole numbers >= 1; names and prefixes match
 * {@link THROTTLE_NAME}. No whitespace at either end. The error of a refused string lists
 * the forms and offers `Limit.per(count, periodMs)`, which takes any period.
 *
 * @returns `{ kind: 'limits', limits: [limit] }` or `{ kind: 'named', name }`. A named
 *   limiter is not looked up here; `resolveLimitInput` checks that it is defined.
 * @throws {@link SluiceConfigError} with option `limit` and the text as value for anything
 *   else: `''`, `'throttle:'`, `'throttle:0,1'`, `'throttle:60,0'`, `'throttle:60,x'`,
 *   `'throttle:60,1,'`, `'throttle:-1,1'`, `'throttle:1.5,1'`, `'60/fortnight'`,
 *   `'0/min'`, `'60/0m'`, `'60/1'`, `'60/min '`, non-strings, etc.
 */
export function parseThrottle(text: string): ThrottleSpec {
  if (typeof text !== 'string') throw new SluiceConfigError('limit', text, FORMS);

  const named = LARAVEL_NAMED.exec(text);
  if (named) return { kind: 'named', name: named[1]! };

  const laravel = LARAVEL_COUNTS.exec(text);
  if (laravel) {
    const count = wholeCount(text, laravel[1]!, 'a request count >= 1');
    const minutes = wholeCount(text, laravel[2] ?? '1', 'decay minutes >= 1');
    let limit = Limit.per(count, checkedPeriod(text, minutes * 60_000));
    if (laravel[3] !== undefined) limit = limit.named(laravel[3]);
    return { kind: 'limits', limits: [limit] };
  }

  const shorthand = SHORTHAND.exec(text);
  if (shorthand) {
    const count = wholeCount(text, shorthand[1]!, 'a request count >= 1');
    // A unit alone is one of it ('min'); a bare number (no unit) is refused: '60/1' reads
    // as a minute to a Laravel user and as 1 ms to the `ms` package.
    const period = shorthand[2]!;
    const ms = /[a-z]$/i.test(period)
      ? durationMs(/^[a-z]/i.test(period) ? `1${period}` : period)
      : undefined;
    if (ms !== undefined) {
      return { kind: 'limits', limits: [Limit.per(count, checkedPeriod(text, ms))] };
    }
  }

  throw new SluiceConfigError('limit', text, FORMS);
}

function wholeCount(text: string, digits: string, what: string): number {
  const value = Number(digits);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new SluiceConfigError('limit', text, `${what} in ${FORMS}`);
  }
  return value;
}

function checkedPeriod(text: string, periodMs: number): number {
  return wholeMs(periodMs, 'limit', text, `a period that fits in 53 bits of ms in ${FORMS}`);
}
