// Calendar quotas: the window edges are the local calendar's (checked against Intl as an
// oracle independent of the library that computes them), across DST changes (30-minute DST
// in Australia/Lord_Howe), a +5:45 zone, 29 February and anchor days 29–31; and the
// quota's decisions count to the next edge.
import fc from 'fast-check';
import { calendarWindow } from '../../src/algorithms/calendar.js';
import { Limit, MemoryStore, RateLimiter, SluiceConfigError } from '../../src/index.js';
import { type CalendarPeriod, calendarEdges, calendarQuota } from '../../src/store-api.js';

const RUNS = Number(process.env.SLUICE_PROPERTY_RUNS ?? 300);
export const ZONES = [
  'UTC',
  'Europe/Paris',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
] as const;

/** 2023-01-01 to 2029-01-01: two leap days (2024, 2028), a dozen DST changes per zone. */
const FROM = Date.UTC(2023, 0, 1);
const TO = Date.UTC(2029, 0, 1);

const formats = new Map<string, Intl.DateTimeFormat>();
/** The local date of `t` in `zone` (the oracle: Intl, not the library under test). */
function localDate(t: number, zone: string): { y: number; m: number; d: number; wd: number } {
  let f = formats.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
    });
    formats.set(zone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(t).map((p) => [p.type, p.value]));
  const wd = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(parts.weekday!) + 1;
  return { y: Number(parts.year), m: Number(parts.month), d: Number(parts.day), wd };
}

const daysIn = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** Whether `t` is the first instant of its local date (the instant before is another date). */
function startsADay(t: number, zone: string): boolean {
  const a = localDate(t - 1, zone);
  const b = localDate(t, zone);
  return a.y !== b.y || a.m !== b.m || a.d !== b.d;
}

/** Whether `t` starts a period of `p`: a first instant of a day that is the period's first. */
function isEdge(p: CalendarPeriod, t: number): boolean {
  if (!startsADay(t, p.timeZone)) return false;
  const { y, m, d, wd } = localDate(t, p.timeZone);
  if (p.unit === 'day') return true;
  if (p.unit === 'week') return wd === p.weekStart;
  return d === Math.min(p.anchorDay, daysIn(y, m));
}

const periodArb: fc.Arbitrary<CalendarPeriod> = fc.record({
  unit: fc.constantFrom('day' as const, 'week' as const, 'month' as const),
  timeZone: fc.constantFrom(...ZONES),
  weekStart: fc.integer({ min: 1, max: 7 }),
  anchorDay: fc.oneof(fc.integer({ min: 1, max: 31 }), fc.integer({ min: 28, max: 31 })),
});

describe('calendar quotas: window edges', () => {
  it('the window holding t starts and ends on the local calendar edges around t', () => {
    fc.assert(
      fc.property(periodArb, fc.integer({ min: FROM, max: TO }), (p, t) => {
        const [start, end] = calendarWindow(p, t);
        expect(start).toBeLessThanOrEqual(t);
        expect(end).toBeGreaterThan(t);
        expect(isEdge(p, start)).toBe(true);
        expect(isEdge(p, end)).toBe(true);
        // No edge in between: the edges are one period apart in local dates.
        const a = localDate(start, p.timeZone);
        const b = localDate(end, p.timeZone);
        const civil = (x: { y: number; m: number; d: number }) => Date.UTC(x.y, x.m - 1, x.d);
        if (p.unit === 'day') expect(civil(b) - civil(a)).toBe(86_400_000);
        else if (p.unit === 'week') expect(civil(b) - civil(a)).toBe(7 * 86_400_000);
        else expect((b.y - a.y) * 12 + b.m - a.m).toBe(1);
        // Consecutive edges: the next window starts where this one ends.
        expect(calendarWindow(p, end)[0]).toBe(end);
        expect(calendarWindow(p, end - 1)).toEqual([start, end]);
        const [e0, e1, e2, e3] = calendarEdges(p, t);
        expect([e1, e2]).toEqual([start, end]);
        expect(calendarWindow(p, e0)).toEqual([e0, e1]);
        expect(calendarWindow(p, e2)).toEqual([e2, e3]);
      }),
      { numRuns: RUNS },
    );
  });

  it('DST, +5:45, 29 February and anchors 29–31: the known edges', () => {
    const day = (timeZone: string) => ({
      unit: 'day' as const,
      timeZone,
      weekStart: 1,
      anchorDay: 1,
    });
    const month = (anchorDay: number, timeZone = 'UTC') => ({
      unit: 'month' as const,
      timeZone,
      weekStart: 1,
      anchorDay,
    });
    const iso = (w: [number, number]) => w.map((x) => new Date(x).toISOString());
    // Paris, 2024-03-31: 23 hours (02:00 → 03:00); 2024-10-27: 25 hours.
    expect(iso(calendarWindow(day('Europe/Paris'), Date.UTC(2024, 2, 31, 12)))).toEqual([
      '2024-03-30T23:00:00.000Z',
      '2024-03-31T22:00:00.000Z',
    ]);
    expect(iso(calendarWindow(day('Europe/Paris'), Date.UTC(2024, 9, 27, 12)))).toEqual([
      '2024-10-26T22:00:00.000Z',
      '2024-10-27T23:00:00.000Z',
    ]);
    // Lord Howe, 2024-10-06: 23.5 hours (+10:30 → +11:00 at 02:00).
    const lh = calendarWindow(day('Australia/Lord_Howe'), Date.UTC(2024, 9, 6, 3));
    expect(lh[1] - lh[0]).toBe(23.5 * 3_600_000);
    // Kathmandu, +5:45 all year.
    expect(iso(calendarWindow(day('Asia/Kathmandu'), Date.UTC(2024, 5, 1, 12)))).toEqual([
      '2024-05-31T18:15:00.000Z',
      '2024-06-01T18:15:00.000Z',
    ]);
    // Anchor 31: Jan 31 → Feb 29 (2024, leap) → Mar 31; anchor 29 in February 2025: the 28th.
    expect(iso(calendarWindow(month(31), Date.UTC(2024, 1, 10)))).toEqual([
      '2024-01-31T00:00:00.000Z',
      '2024-02-29T00:00:00.000Z',
    ]);
    expect(iso(calendarWindow(month(31), Date.UTC(2024, 2, 30)))).toEqual([
      '2024-02-29T00:00:00.000Z',
      '2024-03-31T00:00:00.000Z',
    ]);
    expect(iso(calendarWindow(month(29), Date.UTC(2025, 1, 28, 5)))).toEqual([
      '2025-02-28T00:00:00.000Z',
      '2025-03-29T00:00:00.000Z',
    ]);
    // New York, anchor 1: March 2024 is 31 days less an hour (DST on the 10th).
    const ny = calendarWindow(month(1, 'America/New_York'), Date.UTC(2024, 2, 15));
    expect(ny[1] - ny[0]).toBe(31 * 86_400_000 - 3_600_000);
  });
});

describe('calendar quotas: decisions', () => {
  it('admits the quota per window, denies until the next edge, and opens afresh there', () => {
    fc.assert(
      fc.property(
        periodArb,
        fc.integer({ min: FROM, max: TO }),
        fc.integer({ min: 1, max: 5 }),
        (p, t, limit) => {
          const algorithm = calendarQuota(limit, p);
          const store = new MemoryStore();
          const [, end] = calendarWindow(p, t);
          for (let i = 0; i < limit; i++)
            expect(store.consume('k', algorithm, 1, t).allowed).toBe(true);
          const denied = store.consume('k', algorithm, 1, t);
          expect(denied).toMatchObject({ allowed: false, remaining: 0 });
          expect(denied.retryAfterMs).toBe(end - t);
          expect(denied.resetAfterMs).toBe(end - t);
          expect(store.consume('k', algorithm, 1, end - 1).allowed).toBe(false);
          expect(store.consume('k', algorithm, 1, end)).toMatchObject({
            allowed: true,
            remaining: limit - 1,
          });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a request denied at 23:59:59 local on the last day waits 1 s', async () => {
    let now = Date.UTC(2024, 1, 29, 22, 59, 59); // 23:59:59 in Paris (+01:00), 29 February
    const limit = Limit.perCalendarMonth(1, { timeZone: 'Europe/Paris' });
    expect(limit.calendar).toMatchObject({ unit: 'month', timeZone: 'Europe/Paris' });
    const limiter = new RateLimiter({
      algorithm: calendarQuota(1, limit.calendar!),
      store: new MemoryStore(),
      clock: () => now,
    });
    expect((await limiter.consume('k')).allowed).toBe(true);
    const denied = await limiter.consume('k');
    expect(denied.retryAfterMs).toBe(1000);
    now += 1000;
    expect((await limiter.consume('k')).allowed).toBe(true);
  });

  it('bad options are SluiceConfigErrors naming the option', () => {
    const bad: [() => unknown, string][] = [
      [() => Limit.perCalendarDay(10, { timeZone: 'Mars/Olympus' }), 'timeZone'],
      [() => Limit.perCalendarDay(10, { timeZone: '+05:00' }), 'timeZone'],
      [() => Limit.perCalendarDay(10, { timeZone: 5 as never }), 'timeZone'],
      [() => Limit.perCalendarMonth(10, { anchorDay: 0 }), 'anchorDay'],
      [() => Limit.perCalendarMonth(10, { anchorDay: 32 }), 'anchorDay'],
      [() => Limit.perCalendarMonth(10, { anchorDay: 1.5 }), 'anchorDay'],
      [() => Limit.perCalendarWeek(10, { weekStart: 8 }), 'weekStart'],
      [() => Limit.perCalendarDay(0), 'maxAttempts'],
      [() => Limit.perCalendarDay(10, { anchorDay: 3 } as never), 'anchorDay'],
      [() => Limit.perCalendarDay(10).blockFor('1h'), 'blockFor'],
    ];
    for (const [make, option] of bad) {
      let error: unknown;
      try {
        make();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SluiceConfigError);
      expect((error as SluiceConfigError).message).toContain(option);
    }
  });
});
