import type { SqlNames } from './names.js';

/**
 * The GCRA twin (gcra, cellThrottle, leakyBucket, tokenBucket): `GcraAlgorithm.step`,
 * `decide` and `refund` of @sluice/core in PL/pgSQL, the same arithmetic in ticks.
 * Parameters `p`: `[intervalTicks, ticksPerMs, burst]` (`Algorithm.params`).
 * `round` is JS `Math.round` (ties up, exact for every double): PostgreSQL's `round(float8)`
 * rounds ties to even.
 */
export function gcraSql(q: SqlNames): string {
  return `
CREATE OR REPLACE FUNCTION ${q.fn('round')}(x float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT floor(x) + CASE WHEN x - floor(x) >= 0.5 THEN 1 ELSE 0 END
$$;

CREATE OR REPLACE FUNCTION ${q.fn('gcra_step')}(s float8[], now float8, cost float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  interval_ticks float8 := p[1];
  per_ms float8 := p[2];
  tolerance float8 := p[3] * p[1];
  increment float8 := cost * p[1];
  ahead float8 := 0;
  nxt float8;
  reset float8;
BEGIN
  IF s IS NOT NULL AND s[1] > now THEN
    ahead := ${q.fn('round')}((s[1] - now) * per_ms);
  END IF;
  nxt := ahead + increment;
  IF nxt <= tolerance THEN
    reset := nxt / per_ms;
    IF cost = 0 THEN
      RETURN ARRAY[1, floor((tolerance - nxt) / interval_ticks), 0, reset]::float8[];
    END IF;
    RETURN ARRAY[1, floor((tolerance - nxt) / interval_ticks), 0, reset, now + reset]::float8[];
  END IF;
  RETURN ARRAY[
    0,
    CASE WHEN ahead >= tolerance THEN 0 ELSE floor((tolerance - ahead) / interval_ticks) END,
    CASE WHEN increment > tolerance THEN -1 ELSE (nxt - tolerance) / per_ms END,
    ahead / per_ms
  ]::float8[];
END
$$;

CREATE OR REPLACE FUNCTION ${q.fn('gcra_refund')}(s float8[], now float8, cost float8, at float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  frm float8 := s[1];
  val float8;
  mode float8 := 0;
  nxt float8[] := '{}';
  after float8[] := s;
BEGIN
  IF cost < 0 THEN frm := greatest(coalesce(s[1], now), now); END IF;
  IF frm IS NOT NULL THEN
    val := frm - (cost * p[1]) / p[2];
    IF val <= now THEN
      mode := 1;
      after := NULL;
    ELSE
      mode := 2;
      nxt := ARRAY[val];
      after := nxt;
    END IF;
  END IF;
  RETURN ARRAY[mode] || (${q.fn('gcra_step')}(after, now, 0, p))[1:4] || nxt;
END
$$;
`;
}
