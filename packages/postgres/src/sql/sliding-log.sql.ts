import type { SqlNames } from './names.js';

/**
 * The sliding log twin (`SlidingLogAlgorithm.step` / `refund`; concurrency leases run on
 * it too): one entry per admitted unit while it is inside the window. Parameters:
 * `[quota, windowMs]` (`[quota, leaseMs]` for a concurrency limit). State: `[expiresAt,
 * t1, ..., tn]`, entries ascending.
 */
export function slidingLogSql(q: SqlNames): string {
  return `
CREATE OR REPLACE FUNCTION ${q.fn('sliding_log_step')}(s float8[], now float8, cost float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  quota float8 := p[1];
  w float8 := p[2];
  len int := coalesce(cardinality(s), 0);
  first int;
  count float8;
  last float8 := 0;
  reset float8 := 0;
BEGIN
  first := len + 1;
  IF s IS NOT NULL AND s[1] > now THEN
    first := 2;
    WHILE first <= len AND s[first] <= now - w LOOP first := first + 1; END LOOP;
  END IF;
  count := len - first + 1;
  IF count > 0 THEN
    last := s[len];
    reset := last + w - now;
  END IF;
  IF count + cost <= quota THEN
    IF cost = 0 THEN RETURN ARRAY[1, quota - count, 0, reset]::float8[]; END IF;
    RETURN ARRAY[1, quota - count - cost, 0, w, now + w]::float8[]
      || coalesce(s[first:len], '{}') || array_fill(now, ARRAY[cost::int]);
  END IF;
  RETURN ARRAY[
    0,
    quota - count,
    CASE WHEN cost > quota THEN -1 ELSE s[first + (count + cost - quota - 1)::int] + w - now END,
    reset
  ]::float8[];
END
$$;

CREATE OR REPLACE FUNCTION ${q.fn('sliding_log_refund')}(s float8[], now float8, cost float8, at float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  w float8 := p[2];
  kept float8[] := '{}';
  left_ float8 := cost;
  t float8;
  mode float8 := 0;
  nxt float8[] := '{}';
  after float8[] := s;
BEGIN
  IF s IS NOT NULL AND s[1] > now AND cost > 0 THEN
    FOR i IN REVERSE cardinality(s)..2 LOOP
      t := s[i];
      IF left_ > 0 AND t = at THEN
        left_ := left_ - 1;
      ELSIF t > now - w THEN
        kept := t || kept;
      END IF;
    END LOOP;
    IF left_ < cost THEN
      IF cardinality(kept) = 0 THEN
        mode := 1;
        after := NULL;
      ELSE
        mode := 2;
        nxt := (kept[cardinality(kept)] + w) || kept;
        after := nxt;
      END IF;
    END IF;
  END IF;
  RETURN ARRAY[mode] || (${q.fn('sliding_log_step')}(after, now, 0, p))[1:4] || nxt;
END
$$;
`;
}
