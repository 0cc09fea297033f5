import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames } from '../common/known-options.js';
import { loadLuxon } from './luxon.js';

/**
 * The edges of calendar quotas (`Limit.perCalendarDay`, `perCalendarWeek`,
 * `perCalendarMonth`) in a time zone's local calendar, computed with luxon: a well-kept,
 * dependency-free library over the platform's `Intl` time zone data, whose local-time
 * arithmetic resolves the cases a hand-written `Intl` offset search gets wrong (a day whose
 * midnight does not exist starts at its first instant, e.g. 01:00 in America/Santiago on
 * a spring-forward day; 30-minute DST in Australia/Lord_Howe; +5:45 in Asia/Kathmandu).
 * Only a window change (once a day at most) costs a computation; every decision in between
 * compares two numbers.
 */

/** Which calendar period a quota counts. */
export type CalendarUnit = 'day' | 'week' | 'month';

/** A calendar period, parsed: every field present and valid. */
export interface CalendarPeriod {
  /** Which period: a day, a week or a month of the local calendar. */
  unit: CalendarUnit;
  /** An IANA time zone (`'Europe/Paris'`); `'UTC'` by default. */
  timeZone: string;
  /** Weeks: the first day, ISO numbering (Monday = 1 … Sunday = 7). */
  weekStart: number;
  /** Months: the day of the month the window starts on (1–31, clamped to the month's last day). */
  anchorDay: number;
}

/** Options of `Limit.perCalendarDay`. */
export interface CalendarDayOptions {
  /**
   * The IANA time zone whose local midnight starts a day (`'Europe/Paris'`,
   * `'America/New_York'`).
   * @default 'UTC'
   */
  timeZone?: string;
}

/** Options of `Limit.perCalendarWeek`. */
export interface CalendarWeekOptions extends CalendarDayOptions {
  /**
   * The first day of the week, ISO numbering: Monday = 1 … Sunday = 7.
   * @default 1 (Monday, ISO 8601)
   */
  weekStart?: number;
}

/** Options of `Limit.perCalendarMonth`. */
export interface CalendarMonthOptions extends CalendarDayOptions {
  /**
   * The day of the month a window starts on, at local midnight: 1–31, clamped to the
   * month's last day as billing anchors are (anchor 31: Jan 31, Feb 28 or 29, Mar 31…).
   * @default 1
   */
  anchorDay?: number;
}

/** Nominal lengths (the `w` of draft-8 headers, the limit's `periodMs`): the real ones vary. */
export const NOMINAL_MS: Readonly<Record<CalendarUnit, number>> = {
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 31 * 86_400_000,
};

/**
 * Parses the options of a calendar quota once.
 * @throws {@link SluiceConfigError} naming `timeZone` (not an IANA zone), `weekStart`
 *   (an integer 1–7), `anchorDay` (an integer 1–31), `options` or an unknown option.
 */
export function parseCalendar(unit: CalendarUnit, options: unknown): CalendarPeriod {
  if (options === undefined) options = {};
  const where = `Limit.perCalendar${unit[0]!.toUpperCase()}${unit.slice(1)}()`;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new SluiceConfigError('options', options, `an object of options for ${where}`);
  }
  const known =
    unit === 'day'
      ? ['timeZone']
      : unit === 'week'
        ? ['timeZone', 'weekStart']
        : ['timeZone', 'anchorDay'];
  checkOptionNames(options as object, known, where);
  const o = options as CalendarWeekOptions & CalendarMonthOptions;
  const timeZone = o.timeZone ?? 'UTC';
  // An IANA name starts with a letter: Intl also takes offsets ('+05:00'), which are not zones.
  if (
    typeof timeZone !== 'string' ||
    !/^[A-Za-z]/.test(timeZone) ||
    !loadLuxon().IANAZone.isValidZone(timeZone)
  ) {
    throw new SluiceConfigError('timeZone', timeZone, "an IANA time zone such as 'Europe/Paris'");
  }
  const weekStart = dayNumber('weekStart', o.weekStart ?? 1, 7);
  const anchorDay = dayNumber('anchorDay', o.anchorDay ?? 1, 31);
  return { unit, timeZone, weekStart, anchorDay };
}

function dayNumber(option: string, value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new SluiceConfigError(option, value, `an integer from 1 to ${max}`);
  }
  return value;
}

/** A local calendar date. */
interface LocalDate {
  year: number;
  month: number;
  day: number;
}

/** The first instant (ms since the Unix epoch) of local date `d` in `zone`. */
function startOfDate(d: LocalDate, zone: string): number {
  // A midnight that does not exist (DST at 00:00) moves forward: the day's first instant.
  return loadLuxon()
    .DateTime.fromObject({ year: d.year, month: d.month, day: d.day }, { zone })
    .toMillis();
}

/** `d` plus `days` (negative: minus) in the proleptic Gregorian calendar. */
function addDays(d: LocalDate, days: number): LocalDate {
  const t = loadLuxon().DateTime.utc(d.year, d.month, d.day).plus({ days });
  return { year: t.year, month: t.month, day: t.day };
}

function daysInMonth(year: number, month: number): number {
  return loadLuxon().DateTime.utc(year, month, 1).daysInMonth!;
}

/** The anchor date of month (`year`, `month`): `anchorDay` clamped to the month's last day. */
function anchorOf(year: number, month: number, anchorDay: number): LocalDate {
  return { year, month, day: Math.min(anchorDay, daysInMonth(year, month)) };
}

/**
 * The calendar window `[start, end)` (ms since the Unix epoch) that holds `t`: local
 * midnight to local midnight of the period's first days in `p.timeZone`.
 */
export function calendarWindow(p: CalendarPeriod, t: number): [start: number, end: number] {
  const local = loadLuxon().DateTime.fromMillis(t, { zone: p.timeZone });
  const today: LocalDate = { year: local.year, month: local.month, day: local.day };
  let first: LocalDate;
  let next: LocalDate;
  if (p.unit === 'day') {
    first = today;
    next = addDays(today, 1);
  } else if (p.unit === 'week') {
    first = addDays(today, -((local.weekday - p.weekStart + 7) % 7));
    next = addDays(first, 7);
  } else {
    const y = today.year;
    const m = today.month;
    const anchor = anchorOf(y, m, p.anchorDay);
    const [py, pm] = m === 1 ? [y - 1, 12] : [y, m - 1];
    const [ny, nm] = m === 12 ? [y + 1, 1] : [y, m + 1];
    if (today.day >= anchor.day) {
      first = anchor;
      next = anchorOf(ny, nm, p.anchorDay);
    } else {
      first = anchorOf(py, pm, p.anchorDay);
      next = anchor;
    }
  }
  return [startOfDate(first, p.timeZone), startOfDate(next, p.timeZone)];
}

/**
 * Four consecutive edges `[e0, e1, e2, e3]` around `t` (`e1 <= t < e2`): the window before
 * `t`'s, `t`'s own and the one after. What the Redis twin is given, so that a script whose
 * Redis `TIME` differs from the caller's clock by up to a window still finds its window.
 */
export function calendarEdges(p: CalendarPeriod, t: number): [number, number, number, number] {
  const [e1, e2] = calendarWindow(p, t);
  const [e0] = calendarWindow(p, e1 - 1);
  const [, e3] = calendarWindow(p, e2);
  return [e0, e1, e2, e3];
}

/** Text of a calendar period for names and descriptions: `day/UTC`, `month@31/Europe/Paris`. */
export function calendarText(p: CalendarPeriod): string {
  const extra = p.unit === 'week' ? `@${p.weekStart}` : p.unit === 'month' ? `@${p.anchorDay}` : '';
  return `${p.unit}${extra}/${p.timeZone}`;
}
