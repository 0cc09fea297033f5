import type { SqlNames } from './names.js';

/**
 * The fixed window twin (`FixedWindowAlgorithm.step` / `refund`) and the calendar window
 * twin (`CalendarWindowAlgorithm`), which is a fixed window whose end is the next calendar
 * edge. Fixed window parameters: `[quota, windowMs]`; calendar: `[quota, e0, e1, e2, e3]`
 * (four edges around the caller's time, `calendarEdges`). State: `[windowEnd, count]`.
 */
export function fixedWindowSql(q: SqlNames): string {
  return `
CREATE OR REPLACE FUNCTION ${q.fn('calendar_end')}(t float8, p float8[])
RETURNS float8 LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE span float8;
BEGIN
  IF t < p[3] THEN RETURN p[3]; END IF;
  IF t < p[4] THEN RETURN p[4]; END IF;
  IF t < p[5] THEN RETURN p[5]; END IF;
  span := p[5] - p[4];
  RETURN p[5] + span * (floor((t - p[5]) / span) + 1);
END
$$;

-- One body for both: calendar = true takes the window's end from the edges.
CREATE OR REPLACE FUNCTION ${q.fn('window_step')}(s float8[], now float8, cost float8, p float8[], calendar boolean)
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  quota float8 := p[1];
  win_end float8 := now;
  count float8 := 0;
BEGIN
  IF s IS NOT NULL AND s[1] > now THEN
    win_end := s[1];
    count := s[2];
  END IF;
  IF count + cost <= quota THEN
    IF cost = 0 THEN RETURN ARRAY[1, quota - count, 0, win_end - now]::float8[]; END IF;
    IF count = 0 THEN
      win_end := CASE WHEN calendar THEN ${q.fn('calendar_end')}(now, p) ELSE now + p[2] END;
    END IF;
    count := count + cost;
    RETURN ARRAY[1, quota - count, 0, win_end - now, win_end, count]::float8[];
  END IF;
  RETURN ARRAY[
    0,
    greatest(0, quota - count),
    CASE WHEN cost > quota THEN -1 ELSE win_end - now END,
    win_end - now
  ]::float8[];
END
$$;

CREATE OR REPLACE FUNCTION ${q.fn('window_refund')}(s float8[], now float8, cost float8, at float8, p float8[], calendar boolean)
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  live boolean := s IS NOT NULL AND s[1] > now;
  win_end float8;
  count float8;
  at_end float8;
  mode float8 := 0;
  nxt float8[] := '{}';
  after float8[] := s;
BEGIN
  IF cost < 0 THEN
    win_end := CASE WHEN live THEN s[1]
      WHEN calendar THEN ${q.fn('calendar_end')}(now, p) ELSE now + p[2] END;
    nxt := ARRAY[win_end, CASE WHEN live THEN s[2] ELSE 0 END - cost];
    mode := 2;
    after := nxt;
  ELSIF live THEN
    at_end := CASE WHEN calendar THEN ${q.fn('calendar_end')}(at, p) ELSE NULL END;
    IF (calendar AND at_end = s[1]) OR (NOT calendar AND s[1] - p[2] <= at AND at < s[1]) THEN
      count := s[2] - cost;
      IF count <= 0 THEN
        mode := 1;
        after := NULL;
      ELSE
        mode := 2;
        nxt := ARRAY[s[1], count];
        after := nxt;
      END IF;
    END IF;
  END IF;
  RETURN ARRAY[mode] || (${q.fn('window_step')}(after, now, 0, p, calendar))[1:4] || nxt;
END
$$;
`;
}
