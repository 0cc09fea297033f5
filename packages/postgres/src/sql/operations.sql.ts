import type { SqlNames } from './names.js';

/**
 * The operator entries' objects (`LimitOperations`, docs/guide/operating.md), logged tables (a ban
 * outlives a crash):
 *
 * - `<table>_ops`: one row per entry and limiter prefix (`entry`: its JSON text, `until`:
 *   its end in ms, `NULL` for none);
 * - `<table>_ops_version`: one row per prefix, its version;
 * - `<table>_ops_write(prefix, id, entry, until, now)`: writes (`entry` NULL: removes) an
 *   entry, drops the prefix's expired ones, bumps the version and sends it with
 *   `pg_notify(channel, '<version>:<prefix>')` (delivered at commit); returns the version.
 */
export function operationsSql(q: SqlNames, channel: string): string {
  const ops = q.fn('ops');
  const version = q.fn('ops_version');
  return `
CREATE TABLE IF NOT EXISTS ${ops} (
  prefix text NOT NULL,
  id text NOT NULL,
  entry text NOT NULL,
  until float8,
  PRIMARY KEY (prefix, id)
);
CREATE TABLE IF NOT EXISTS ${version} (
  prefix text PRIMARY KEY,
  version bigint NOT NULL
);
CREATE OR REPLACE FUNCTION ${q.fn('ops_write')}(
  p_prefix text, p_id text, p_entry text, p_until float8, p_now float8
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE v bigint;
BEGIN
  -- The version row first: writers of one prefix take turns, in the order of the versions.
  INSERT INTO ${version} AS t (prefix, version) VALUES (p_prefix, 1)
    ON CONFLICT (prefix) DO UPDATE SET version = t.version + 1
    RETURNING t.version INTO v;
  DELETE FROM ${ops} WHERE prefix = p_prefix AND until <= p_now;
  IF p_entry IS NULL THEN
    DELETE FROM ${ops} WHERE prefix = p_prefix AND id = p_id;
  ELSE
    INSERT INTO ${ops} (prefix, id, entry, until) VALUES (p_prefix, p_id, p_entry, p_until)
      ON CONFLICT (prefix, id) DO UPDATE SET entry = excluded.entry, until = excluded.until;
  END IF;
  PERFORM pg_notify(${literal(channel)}, v || ':' || p_prefix);
  RETURN v;
END $$;
`;
}

/** The version of prefix `$1` (0 when none was written): one primary-key read. */
export function versionSql(q: SqlNames): string {
  return `SELECT coalesce((SELECT version FROM ${q.fn('ops_version')} WHERE prefix = $1), 0)`;
}

/**
 * `[version, [entry, …]]` of prefix `$1` as JSON text, in one statement (one snapshot: the
 * entries are those of that version); entries ended before `$2` (ms) left out.
 */
export function loadSql(q: SqlNames): string {
  return `SELECT json_build_array(
  coalesce((SELECT version FROM ${q.fn('ops_version')} WHERE prefix = $1), 0),
  coalesce((SELECT json_agg(entry::json) FROM ${q.fn('ops')}
    WHERE prefix = $1 AND (until IS NULL OR until > $2::float8)), '[]'::json)
)::text`;
}

/** A write (`$3` NULL: a removal); resolves to the new version. */
export function writeSql(q: SqlNames): string {
  return `SELECT ${q.fn('ops_write')}($1::text, $2::text, $3::text, $4::float8, $5::float8)`;
}

/**
 * The notification channel of a store's table: `sluice:<schema>.<table>`, or when that is
 * longer than an identifier may be (63), `sluice:` and a hash of it.
 */
export function channelOf(schema: string, table: string): string {
  const full = `sluice:${schema}.${table}`;
  if (full.length <= 63) return full;
  // FNV-1a, 32 bits, twice with two seeds: a name, not a secret.
  const fnv = (seed: number) => {
    let h = seed;
    for (let i = 0; i < full.length; i++) {
      h ^= full.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h.toString(16).padStart(8, '0');
  };
  return `sluice:${fnv(0x811c9dc5)}${fnv(0x01000193)}`;
}

/** `text` as an SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
