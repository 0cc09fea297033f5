import type { SqlNames } from './names.js';

/**
 * The penalty twin (`PenaltyAlgorithm` of @sluice/core, `Limit.blockFor`) around any inner
 * twin, and the dispatchers `step(kind, ...)` / `refund(kind, ...)` that run a kind's twin.
 * A penalty's kind is `'penalty:<inner kind>'`; its parameters `[blockMs, backoff,
 * maxBlockMs, ...inner params]`. State, as in TS: `[expiry, watchUntil, blockedUntil,
 * lastBlockMs, tag, ...inner]` (tag 0: no inner state, 1: a number (GCRA's TAT), 2: an
 * inner array).
 */
export function penaltySql(q: SqlNames): string {
  return `
CREATE OR REPLACE FUNCTION ${q.fn('step')}(kind text, s float8[], now float8, cost float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  CASE kind
    WHEN 'gcra' THEN RETURN ${q.fn('gcra_step')}(s, now, cost, p);
    WHEN 'fixed-window' THEN RETURN ${q.fn('window_step')}(s, now, cost, p, false);
    WHEN 'calendar-window' THEN RETURN ${q.fn('window_step')}(s, now, cost, p, true);
    WHEN 'sliding-window' THEN RETURN ${q.fn('sliding_window_step')}(s, now, cost, p);
    WHEN 'sliding-log' THEN RETURN ${q.fn('sliding_log_step')}(s, now, cost, p);
    ELSE
      IF left(kind, 8) = 'penalty:' THEN
        RETURN ${q.fn('penalty_step')}(substr(kind, 9), s, now, cost, p);
      END IF;
      RAISE EXCEPTION 'sluice: no SQL twin for algorithm kind %', kind USING ERRCODE = '22023';
  END CASE;
END
$$;

CREATE OR REPLACE FUNCTION ${q.fn('refund')}(kind text, s float8[], now float8, cost float8, at float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  CASE kind
    WHEN 'gcra' THEN RETURN ${q.fn('gcra_refund')}(s, now, cost, at, p);
    WHEN 'fixed-window' THEN RETURN ${q.fn('window_refund')}(s, now, cost, at, p, false);
    WHEN 'calendar-window' THEN RETURN ${q.fn('window_refund')}(s, now, cost, at, p, true);
    WHEN 'sliding-window' THEN RETURN ${q.fn('sliding_window_refund')}(s, now, cost, at, p);
    WHEN 'sliding-log' THEN RETURN ${q.fn('sliding_log_refund')}(s, now, cost, at, p);
    ELSE
      IF left(kind, 8) = 'penalty:' THEN
        RETURN ${q.fn('penalty_refund')}(substr(kind, 9), s, now, cost, at, p);
      END IF;
      RAISE EXCEPTION 'sluice: no SQL twin for algorithm kind %', kind USING ERRCODE = '22023';
  END CASE;
END
$$;

-- consumeAtMost: core's stepAtMost (at-most.ts). Returns the step's layout with the grant
-- in place of allowed: [granted, remaining, retryAfterMs, resetAfterMs, ...state written].
-- The peek's remaining is the grant (every twin admits a cost iff it is at most it); none
-- granted: the one-unit denial, nothing written. A penalty grants its inner twin's grant
-- unless blocked (then the blocked peek): a grant of 0 never starts a block.
CREATE OR REPLACE FUNCTION ${q.fn('at_most')}(kind text, s float8[], now float8, mx float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  r float8[];
  n float8;
  inner_kind text;
  watched boolean := s IS NOT NULL AND s[2] > now;
BEGIN
  IF left(kind, 8) = 'penalty:' THEN
    inner_kind := substr(kind, 9);
    IF watched AND s[3] > now THEN
      RETURN ${q.fn('penalty_step')}(inner_kind, s, now, 0, p);
    END IF;
    r := ${q.fn('at_most')}(inner_kind, ${q.fn('penalty_inner')}(s, now), now, mx, p[4:cardinality(p)]);
    IF cardinality(r) = 4 THEN RETURN r; END IF;
    RETURN r[1:4] || ${q.fn('penalty_join')}(inner_kind,
      CASE WHEN watched THEN s[2] ELSE 0 END, CASE WHEN watched THEN s[3] ELSE 0 END,
      CASE WHEN watched THEN s[4] ELSE 0 END, r[5:cardinality(r)], now);
  END IF;
  r := ${q.fn('step')}(kind, s, now, 0, p);
  n := least(mx, r[2]);
  IF n > 0 THEN
    r := ${q.fn('step')}(kind, s, now, n, p);
    RETURN ARRAY[n] || r[2:cardinality(r)];
  END IF;
  r := ${q.fn('step')}(kind, s, now, 1, p);
  RETURN ARRAY[0] || r[2:4];
END
$$;

-- The composite state (TS join); NULL when neither part is live.
CREATE OR REPLACE FUNCTION ${q.fn('penalty_join')}(inner_kind text, watch float8, blocked float8, last float8, inner_s float8[], now float8)
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  live boolean := watch > now;
  head float8[];
BEGIN
  IF NOT live AND inner_s IS NULL THEN RETURN NULL; END IF;
  head := ARRAY[
    greatest(CASE WHEN live THEN watch ELSE 0 END, coalesce(inner_s[1], 0)),
    CASE WHEN live THEN watch ELSE 0 END,
    CASE WHEN live THEN blocked ELSE 0 END,
    CASE WHEN live THEN last ELSE 0 END
  ];
  IF inner_s IS NULL THEN RETURN head || 0::float8; END IF;
  IF inner_kind = 'gcra' THEN RETURN head || 1::float8 || inner_s[1]; END IF;
  RETURN head || 2::float8 || inner_s;
END
$$;

-- The inner state of a composite one (TS #split), NULL when absent or expired.
CREATE OR REPLACE FUNCTION ${q.fn('penalty_inner')}(s float8[], now float8)
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE inner_s float8[];
BEGIN
  IF s IS NULL THEN RETURN NULL; END IF;
  inner_s := CASE s[5] WHEN 1 THEN ARRAY[s[6]] WHEN 2 THEN s[6:cardinality(s)] ELSE NULL END;
  IF inner_s IS NOT NULL AND inner_s[1] <= now THEN RETURN NULL; END IF;
  RETURN inner_s;
END
$$;

CREATE OR REPLACE FUNCTION ${q.fn('penalty_step')}(inner_kind text, s float8[], now float8, cost float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  ip float8[] := p[4:cardinality(p)];
  watched boolean := s IS NOT NULL AND s[2] > now;
  watch float8 := CASE WHEN watched THEN s[2] ELSE 0 END;
  blocked float8 := CASE WHEN watched THEN s[3] ELSE 0 END;
  last float8 := CASE WHEN watched THEN s[4] ELSE 0 END;
  inner_s float8[] := ${q.fn('penalty_inner')}(s, now);
  r float8[];
  block float8;
  until float8;
BEGIN
  IF blocked > now THEN
    r := ${q.fn('step')}(inner_kind, inner_s, now, 0, ip);
    RETURN ARRAY[0, 0, blocked - now, greatest(blocked - now, r[4])]::float8[];
  END IF;
  r := ${q.fn('step')}(inner_kind, inner_s, now, cost, ip);
  IF r[1] = 1 OR r[3] < 0 THEN
    IF cardinality(r) = 4 THEN RETURN r; END IF;
    RETURN r[1:4] || ${q.fn('penalty_join')}(inner_kind, watch, blocked, last, r[5:cardinality(r)], now);
  END IF;
  block := CASE WHEN watch > now AND last > 0 THEN least(p[3], ceil(last * p[2])) ELSE p[1] END;
  until := now + block;
  RETURN ARRAY[0, 0, block, greatest(block, r[4])]::float8[]
    || ${q.fn('penalty_join')}(inner_kind, until + block, until, block, inner_s, now);
END
$$;

CREATE OR REPLACE FUNCTION ${q.fn('penalty_refund')}(inner_kind text, s float8[], now float8, cost float8, at float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  watched boolean := s IS NOT NULL AND s[2] > now;
  r float8[];
  nxt float8[];
  mode float8 := 0;
  after float8[] := s;
BEGIN
  r := ${q.fn('refund')}(inner_kind, ${q.fn('penalty_inner')}(s, now), now, cost, at, p[4:cardinality(p)]);
  IF r[1] <> 0 THEN
    nxt := ${q.fn('penalty_join')}(
      inner_kind,
      CASE WHEN watched THEN s[2] ELSE 0 END,
      CASE WHEN watched THEN s[3] ELSE 0 END,
      CASE WHEN watched THEN s[4] ELSE 0 END,
      CASE WHEN r[1] = 2 THEN r[6:cardinality(r)] ELSE NULL END,
      now);
    mode := CASE WHEN nxt IS NULL THEN 1 ELSE 2 END;
    after := nxt;
  END IF;
  RETURN ARRAY[mode] || (${q.fn('penalty_step')}(inner_kind, after, now, 0, p))[1:4]
    || coalesce(nxt, '{}');
END
$$;
`;
}
