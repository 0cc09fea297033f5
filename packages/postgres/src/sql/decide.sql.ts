import type { SqlNames } from './names.js';

/** The first value of a reply when the database clock had reached the call's deadline. */
export const EXPIRED = -2;

/** Values per decision in a reply of `decide`: allowed, remaining, retryAfterMs, resetAfterMs. */
export const WIDTH = 4;

/**
 * The table, and `decide`: every call of one statement (a batch), atomically.
 *
 * `decide(dkeys, kidx, ops, grp, alg, costs, nows, ats, akinds, aparams, aoff, alen, deadline)`:
 *
 * 1. locks every key of the batch (`dkeys`, distinct, in the order the client sorted them:
 *    every batch of every process locks in that one order, so two batches never deadlock),
 *    creating the rows that are missing, in one `INSERT ... ON CONFLICT DO UPDATE ... WHERE
 *    false` (which locks a conflicting row without writing it);
 * 2. reads the database clock (`clock_timestamp()`, whole ms) and returns `[EXPIRED,
 *    clock]` without deciding anything when it has reached `deadline` (a call its caller
 *    gave up on charges nothing);
 * 3. decides each request in order: request `i` is on `dkeys[kidx[i]]`, a consume
 *    (`ops[i]` 0), a refund (1, of a charge at `ats[i]`) or a partial grant (2, `at_most`:
 *    up to `costs[i]` units, the grant replied where `allowed` is), of `costs[i]` units, at
 *    `nows[i]` (NULL: the database clock), by algorithm `alg[i]` (kind `akinds[a]`,
 *    parameters `aparams[aoff[a] .. aoff[a] + alen[a] - 1]`). Consecutive requests with the
 *    same `grp` are all-or-nothing (`consumeEach` of @sluice/core: peek all, charge all only
 *    if each fits).
 *
 * Returns 4 numbers per request (allowed, remaining, retryAfterMs, resetAfterMs; for a
 * refund the peek afterwards), then the clock.
 */
export function decideSql(q: SqlNames, logged: boolean): string {
  const t = q.table;
  return `
CREATE ${logged ? '' : 'UNLOGGED '}TABLE IF NOT EXISTS ${t} (
  key text COLLATE "C" PRIMARY KEY,
  state float8[] NOT NULL,
  expires_at float8 NOT NULL
) WITH (fillfactor = 80);

-- One request on a locked row: read, run the twin, write.
CREATE OR REPLACE FUNCTION ${q.fn('apply')}(k text, op int, kind text, now float8, cost float8, at float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE
  s float8[];
  r float8[];
BEGIN
  SELECT state INTO s FROM ${t} WHERE key = k;
  IF cardinality(s) = 0 OR s[1] <= now THEN s := NULL; END IF;
  IF op = 1 THEN
    r := ${q.fn('refund')}(kind, s, now, cost, at, p);
    IF r[1] = 1 THEN
      UPDATE ${t} SET state = '{}', expires_at = 0 WHERE key = k;
    ELSIF r[1] = 2 THEN
      UPDATE ${t} SET state = r[6:cardinality(r)], expires_at = r[6] WHERE key = k;
    END IF;
    RETURN r[2:5];
  END IF;
  IF op = 2 THEN
    r := ${q.fn('at_most')}(kind, s, now, cost, p);
  ELSE
    r := ${q.fn('step')}(kind, s, now, cost, p);
  END IF;
  IF cardinality(r) > 4 THEN
    UPDATE ${t} SET state = r[5:cardinality(r)], expires_at = r[5] WHERE key = k;
  END IF;
  RETURN r[1:4];
END
$$;

-- The peek (cost 0) of a locked row.
CREATE OR REPLACE FUNCTION ${q.fn('peek')}(k text, kind text, now float8, p float8[])
RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE s float8[];
BEGIN
  SELECT state INTO s FROM ${t} WHERE key = k;
  IF cardinality(s) = 0 OR s[1] <= now THEN s := NULL; END IF;
  RETURN (${q.fn('step')}(kind, s, now, 0, p))[1:4];
END
$$;

CREATE OR REPLACE FUNCTION ${q.fn('decide')}(
  dkeys text[], kidx int[], ops int[], grp int[], alg int[], costs float8[], nows float8[],
  ats float8[], akinds text[], aparams float8[], aoff int[], alen int[], deadline float8)
RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE
  clock float8;
  n int := cardinality(kidx);
  out_ float8[] := '{}';
  peeks float8[];
  fits boolean;
  i int := 1;
  j int;
  m int;
  a int;
  now_ float8;
BEGIN
  INSERT INTO ${t} AS r (key, state, expires_at)
    SELECT u.k, '{}', 0 FROM unnest(dkeys) WITH ORDINALITY AS u(k, o) ORDER BY u.o
    ON CONFLICT (key) DO UPDATE SET expires_at = r.expires_at WHERE false;
  clock := floor(extract(epoch FROM clock_timestamp()) * 1000);
  IF deadline IS NOT NULL AND clock >= deadline THEN
    RETURN ARRAY[${EXPIRED}, clock]::float8[];
  END IF;
  WHILE i <= n LOOP
    j := i;
    WHILE j < n AND grp[j + 1] = grp[i] LOOP j := j + 1; END LOOP;
    IF j = i THEN
      a := alg[i];
      out_ := out_ || ${q.fn('apply')}(dkeys[kidx[i]], ops[i], akinds[a], coalesce(nows[i], clock),
        costs[i], ats[i], aparams[aoff[a]:aoff[a] + alen[a] - 1]);
    ELSE
      -- All-or-nothing: peek each, charge each only if every one fits.
      peeks := '{}';
      fits := true;
      FOR m IN i..j LOOP
        a := alg[m];
        peeks := peeks || ${q.fn('peek')}(dkeys[kidx[m]], akinds[a], coalesce(nows[m], clock),
          aparams[aoff[a]:aoff[a] + alen[a] - 1]);
        IF costs[m] > peeks[(m - i) * 4 + 2] THEN fits := false; END IF;
      END LOOP;
      FOR m IN i..j LOOP
        a := alg[m];
        IF fits OR costs[m] > peeks[(m - i) * 4 + 2] THEN
          out_ := out_ || ${q.fn('apply')}(dkeys[kidx[m]], 0, akinds[a], coalesce(nows[m], clock),
            costs[m], 0, aparams[aoff[a]:aoff[a] + alen[a] - 1]);
        ELSE
          out_ := out_ || peeks[(m - i) * 4 + 1:(m - i) * 4 + 4];
        END IF;
      END LOOP;
    END IF;
    i := j + 1;
  END LOOP;
  RETURN out_ || clock;
END
$$;
`;
}

/**
 * Deletes up to `$2` rows whose state expired before `$1` (ms), never waiting on a row a
 * decision holds (`SKIP LOCKED`: a sweep never blocks nor deadlocks a decision); returns
 * how many it deleted.
 */
export function sweepSql(q: SqlNames): string {
  const t = q.table;
  return `WITH gone AS (DELETE FROM ${t} WHERE key IN (
  SELECT key FROM ${t} WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED
) RETURNING 1) SELECT count(*)::int AS n FROM gone`;
}
