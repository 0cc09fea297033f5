import type { SqlNames } from './names.js';

/**
 * The sliding window twin (`SlidingWindowAlgorithm.step` and `refundWindow` of
 * @sluice/core): windows aligned to multiples of `windowMs`, comparisons on integers
 * scaled by `windowMs`. Parameters: `[quota, windowMs]`. State: `[expiresAt, start,
 * previousCount, currentCount]`.
 */
export function slidingWindowSql(q: SqlNames): string {
  return `
CREATE OR REPLACE FUNCTION ${q.fn('sliding_window_step')}(s float8[], now float8, cost float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  quota float8 := p[1];
  w float8 := p[2];
  start float8 := floor(now / p[2]) * p[2];
  elapsed float8;
  prev float8 := 0;
  curr float8 := 0;
  weight float8;
  used float8;
  after float8;
  remaining float8;
  reset float8;
  retry float8;
  to_next float8;
BEGIN
  elapsed := now - start;
  IF s IS NOT NULL AND s[1] > now THEN
    IF s[2] = start THEN
      prev := s[3];
      curr := s[4];
    ELSIF s[2] = start - w THEN
      prev := s[4];
    END IF;
  END IF;
  weight := w - elapsed;
  used := prev * weight + curr * w;
  reset := CASE WHEN curr > 0 THEN start + 2 * w - now WHEN prev > 0 THEN start + w - now ELSE 0 END;
  IF used + cost * w <= quota * w THEN
    after := used + cost * w;
    remaining := floor((quota * w - after) / w);
    IF cost = 0 THEN RETURN ARRAY[1, remaining, 0, reset]::float8[]; END IF;
    curr := curr + cost;
    RETURN ARRAY[1, remaining, 0, start + 2 * w - now, start + 2 * w, start, prev, curr]::float8[];
  END IF;
  IF cost > quota THEN
    retry := -1;
  ELSIF prev > 0 AND curr + cost <= quota THEN
    retry := (prev * weight - (quota - curr - cost) * w) / prev;
  ELSE
    to_next := start + w - now;
    retry := CASE WHEN curr + cost <= quota THEN to_next
      ELSE (to_next * curr + curr * w - (quota - cost) * w) / curr END;
  END IF;
  RETURN ARRAY[0, greatest(0, floor((quota * w - used) / w)), retry, reset]::float8[];
END
$$;

CREATE OR REPLACE FUNCTION ${q.fn('sliding_window_refund')}(s float8[], now float8, cost float8, at float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  w float8 := p[2];
  start float8 := floor(at / p[2]) * p[2];
  prev float8;
  curr float8;
  found boolean := true;
  mode float8 := 0;
  nxt float8[] := '{}';
  after float8[] := s;
BEGIN
  IF s IS NOT NULL AND s[1] > now THEN
    prev := s[3];
    curr := s[4];
    IF s[2] = start THEN
      curr := greatest(0, curr - cost);
    ELSIF s[2] = start + w THEN
      prev := greatest(0, prev - cost);
    ELSE
      found := false;
    END IF;
    IF found THEN
      IF prev = 0 AND curr = 0 THEN
        mode := 1;
        after := NULL;
      ELSE
        mode := 2;
        nxt := ARRAY[s[1], s[2], prev, curr];
        after := nxt;
      END IF;
    END IF;
  END IF;
  RETURN ARRAY[mode] || (${q.fn('sliding_window_step')}(after, now, 0, p))[1:4] || nxt;
END
$$;
`;
}
