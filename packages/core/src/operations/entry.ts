/**
 * The operator entries of §16 (ban, allow, deny, override) as every store keeps them, and
 * the small part of a store that carries them to every process on it.
 */

/** What an entry does. Precedence: `allow` > `deny` > `ban` > `override` > configured limits. */
export type OperationKind = 'ban' | 'allow' | 'deny' | 'override';

/**
 * Who an entry is about, normalised: `{ ip }` a whole address (IPv4 as is, IPv4-mapped
 * IPv6 folded to IPv4, other IPv6 in canonical form, e.g. `'2001:db8:1:2::5'`), which
 * applies to every request whose own group holds it (IPv6 grouped by that request's
 * `ipv6Subnet`: at /56 the address's /56, at /64 its /64); an entry written by an earlier
 * version kept the /64 (`'2001:db8:1:2::/64'`) and applies to that network; `{ cidr }` a network in canonical form (`'10.0.0.0/8'`,
 * `'2001:db8::/32'`); `{ user }` a user id as the `user` option returns it (as text);
 * `{ key }` the whole text of a `key` option's answer. A user or key may be a wildcard
 * pattern, kept as written: `*` matches any run of characters (none included), `\*` is a
 * literal star (`{ user: 'premium_*' }`, `{ key: 'tenant:*:bot' }`; docs/guide/operating.md,
 * "Wildcard subjects").
 */
export type OperationSubject =
  | { ip: string }
  | { cidr: string }
  | { user: string }
  | { key: string };

/**
 * A subject as callers write it: the shapes of {@link OperationSubject}, with a user id
 * as a number too, and IPs or CIDRs in any form ipaddr.js parses (normalised on write).
 */
export type SubjectInput =
  | { ip: string }
  | { cidr: string }
  | { user: string | number }
  | { key: string };

/**
 * One operator entry. JSON-serialisable; every store keeps it as is (Redis: a JSON value
 * in a hash) and hands it back from {@link OperationsSync.load}.
 *
 * @example
 * ```ts
 * const entry: OperationEntry = {
 *   id: 'ban:ip:203.0.113.7', kind: 'ban', subject: { ip: '203.0.113.7' },
 *   until: Date.now() + 3_600_000, at: Date.now(), reason: 'scraping',
 * };
 * ```
 */
export interface OperationEntry {
  /**
   * Stable identity: `kind:type:value` of the normalised subject, plus `:name` for an
   * override narrowed to one named limit (`'override:user:42:api'`). Writing an entry
   * with an existing id replaces it.
   */
  id: string;
  /** What it does (`'ban'`, `'allow'`, `'deny'`, `'override'`); see {@link OperationKind}. */
  kind: OperationKind;
  /** The normalised subject (see {@link OperationSubject}). */
  subject: OperationSubject;
  /**
   * When the entry ends, ms since the Unix epoch; `null` = until removed (allow and deny
   * only: a ban and an override always have an end).
   */
  until: number | null;
  /** When it was written, ms since the Unix epoch. */
  at: number;
  /** Free text for the operator (shown by `list()`); never printed in logs by sluice. */
  reason?: string;
  /**
   * Override only: the limit that replaces the subject's configured limits, serialised:
   * a throttle string (`'100/1m'`, `'throttle:60,1'`) or the JSON text of a
   * {@link LimitSpec} (`'{"algorithm":"gcra","rate":100,"period":"1m","burst":20}'`).
   * Parsed with the same parser routes use ({@link parseOverrideLimit}).
   */
  limit?: string;
  /** Override only: the named limit it applies to (default: every limit of the subject). */
  name?: string;
}

/**
 * What a store offers so operator entries reach every process on it: `Store.operations`.
 * A store whose entries can come from other processes calls `enableOperations()` (from
 * `@sluice/core/store`) when constructed, so a bundler keeps what limiters obey them with.
 * Versions are integers that grow with every change of a prefix's entries; a process
 * compares its snapshot's version with {@link OperationsSync.version} every `syncMs` and
 * reloads when they differ, so a missed notification is caught up.
 *
 * @example
 * ```ts
 * const sync = store.operations!;
 * const { version, entries } = await sync.load('sl');
 * const stop = sync.subscribe('sl', (v) => { if (v !== version) void reload(); });
 * ```
 */
export interface OperationsSync {
  /**
   * `true` when entries written here reach other processes (Redis, Postgres); `false`
   * when they stay in this process (`MemoryStore`).
   */
  readonly shared: boolean;
  /**
   * Optional: how often, in **ms**, each process re-checks {@link OperationsSync.version}
   * (a store option, e.g. `RedisStore({ operations: { syncMs } })`). Default 5000;
   * `LimitOperations({ syncMs })` sets it for its prefix in its process.
   */
  readonly syncMs?: number;
  /** Every entry of `prefix` (expired ones may be included; readers drop them) and its version. */
  load(prefix: string): Promise<{ version: number; entries: OperationEntry[] }>;
  /** Writes (or replaces, by id) one entry; resolves to the new version. */
  put(prefix: string, entry: OperationEntry): Promise<number>;
  /** Removes the entry with `id` (no error if absent); resolves to the new version. */
  remove(prefix: string, id: string): Promise<number>;
  /** The current version of `prefix`'s entries (0 when none was ever written). */
  version(prefix: string): Promise<number>;
  /**
   * Calls `onChange(version)` after each change of `prefix`'s entries (from any process
   * on the store, best effort); returns the function that stops it.
   */
  subscribe(prefix: string, onChange: (version: number) => void): () => void;
}
