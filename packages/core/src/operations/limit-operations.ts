import { type Duration, parseWholeMs } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames } from '../common/known-options.js';
import { sha256Base64url } from '../common/sha256.js';
import { LIMIT_NAME, LIMIT_NAME_FORM } from '../limits/limit.js';
import type { Store } from '../stores/store.js';
import { CidrSet } from './cidr.js';
import type {
  OperationEntry,
  OperationKind,
  OperationSubject,
  OperationsSync,
  SubjectInput,
} from './entry.js';
import { parseOverrideLimit } from './override.js';
import { covers } from './patterns.js';
import { operationsSnapshot } from './registry.js';
import { enableOperations, type OperationsSnapshot } from './snapshot.js';
import { earlierIpId, entryId, normaliseSubject, subjectId } from './subject.js';

/** Options of {@link LimitOperations}. */
export interface LimitOperationsOptions {
  /** The store whose limiters obey these operations; it must have `operations`. */
  store: Store;
  /** The key prefix of the middleware / `RateLimiter` to act on. Default `'sl'` (theirs). */
  prefix?: string;
  /**
   * How often every limiter of this process on the store and prefix re-checks the store's
   * version of the entries (catching a missed notification): **ms** or a duration string.
   * Default 5 s. Only a shared store (Redis, Postgres, SQLite, Durable Objects) polls.
   */
  syncMs?: Duration;
  /** ms since the Unix epoch, for `at` and `until`; default `Date.now`. */
  clock?: () => number;
  /** Counters of `top()` (Space-Saving `k`): an integer >= 1, default 1024. */
  topK?: number;
}

/** `ban()` options. */
export interface BanOptions {
  /** How long the ban lasts: **ms** or a duration string (`'1h'`). Required. */
  for: Duration;
  /** Free text kept with the entry (shown by `list()`). */
  reason?: string;
}

/** `allow()` / `deny()` options. */
export interface ListOptions {
  /** How long the entry lasts: **ms** or a duration string. Default: until removed. */
  for?: Duration;
  /** Free text kept with the entry. */
  reason?: string;
}

/** `override()` options. */
export interface OverrideOptions {
  /** How long the override lasts: **ms** or a duration string. Required. */
  for: Duration;
  /** Only the limit with this name (`Limit.named`, a named limiter's); default every limit. */
  name?: string;
  /** Free text kept with the entry. */
  reason?: string;
}

/** One key of a subject as {@link LimitOperations.inspect} peeks it (nothing charged). */
export interface InspectedLimit {
  /** The limit's name (`undefined` for a `RateLimiter`). */
  name: string | undefined;
  /** The store key (the limiter's prefix included). */
  key: string;
  /** Units left now. */
  remaining: number;
  /** The quota in force (an override's, when one applies). */
  limit: number;
  /** ms until the key is full again. */
  resetMs: number;
}

/** What {@link LimitOperations.inspect} answers for one subject. */
export interface Inspection {
  /** The subject asked about, normalised (an IP grouped, a CIDR canonical). */
  subject: OperationSubject;
  /** The entries in force that apply to it, by precedence (allow, deny, ban, override). */
  entries: OperationEntry[];
  /** Until when (ms since epoch) a deny or a ban blocks it (`Infinity`: a deny with no end); `null`: not blocked. */
  blockedUntil: number | null;
  /**
   * Its keys under the limits that limiters of this process registered on this store and
   * prefix (an HTTP limit: one per route it was seen on).
   */
  limits: InspectedLimit[];
}

/** One row of {@link LimitOperations.top}. */
export interface TopEntry {
  /**
   * The subject (`'ip:203.0.113.7'`, `'user:42'`, `'key:…'`) with `{ ids: true }`, else its
   * SHA-256 (base64url, 16 characters): the same subject always hashes alike.
   */
  id: string;
  /** Denials counted (Space-Saving: overcounts by at most `error`). */
  count: number;
  /** The overcount bound of Space-Saving. */
  error: number;
}

const OPTIONS = ['store', 'prefix', 'syncMs', 'clock', 'topK'];
const PRECEDENCE: Record<OperationKind, number> = { allow: 0, deny: 1, ban: 2, override: 3 };

/**
 * Operator actions at runtime: bans, allow and deny lists, per-subject
 * overrides, inspection and the most-denied subjects. Every `RateLimiter` and HTTP
 * middleware on the same store and prefix obeys them with no option to set, deciding from a
 * local snapshot (no extra store round trip per decision); a shared store (Redis) carries
 * them to every process. Precedence: allow > deny > ban > override > configured limits.
 * A ban answers 429 with `Retry-After` = what is left of it; a deny 403; an override
 * replaces the subject's quotas from its next decision, on the same keys (GCRA keeps its
 * TAT, windows their count).
 *
 * Subjects: `{ ip }` (an address, IPv4-mapped folded; it applies to every request whose own
 * group holds it: IPv6 grouped by that request's `ipv6Subnet`, so at /56 it reaches the
 * address's /56, at /64 its /64, at /128 the address alone), `{ cidr }`
 * (allow, deny, ban), `{ user }` (the `user` option's id), `{ key }` (the `key` option's
 * answer; a `RateLimiter`'s key). A user or key may be a wildcard pattern: `*` matches any
 * run of characters (none included), `\*` is a literal star. An exact subject wins over a
 * pattern, and of two patterns the one with more literal characters (then the longer
 * literal prefix, then the pattern text); `list()` shows patterns as written. Matched in
 * each process's snapshot, compiled once per change: no cost per pattern per decision.
 *
 * @throws {@link SluiceConfigError} naming `store` when the store has no `operations`
 *   (it cannot share them), or naming any invalid or unknown option; a method naming
 *   `subject.user` / `subject.key` for a bad pattern (two stars in a row, or no literal
 *   character).
 * @example
 * ```ts
 * const ops = new LimitOperations({ store });
 * await ops.ban({ ip: '203.0.113.7' }, { for: '1h', reason: 'scraping' });
 * await ops.allow('10.0.0.0/8');
 * await ops.override({ user: 'acme' }, '1000/1m', { for: '30d' });
 * await ops.override({ user: 'premium_*' }, '1000/1m', { for: '30d' }); // every premium_ user
 * await ops.ban({ key: 'tenant:*:bot' }, { for: '1h' });
 * ```
 */
export class LimitOperations {
  /** The key prefix acted on. */
  readonly prefix: string;
  readonly #sync: OperationsSync;
  readonly #snapshot: OperationsSnapshot;
  readonly #clock: () => number;

  constructor(options: LimitOperationsOptions) {
    if (options === null || typeof options !== 'object') {
      throw new SluiceConfigError('options', options, 'an object { store, prefix?, syncMs? }');
    }
    checkOptionNames(options, OPTIONS, 'new LimitOperations()');
    const { store, prefix = 'sl', syncMs, clock = Date.now, topK } = options;
    const sync = (store as Store | undefined)?.operations;
    if (sync === undefined || sync === null || typeof sync.load !== 'function') {
      throw new SluiceConfigError('store', store, 'a store with operations (Store.operations)', {
        hint: 'this store cannot share operations (bans, allow and deny lists, overrides) between processes; use MemoryStore (this process), RedisStore, PostgresStore, SqliteStore or DurableObjectStore',
      });
    }
    if (typeof prefix !== 'string' || prefix === '') {
      throw new SluiceConfigError('prefix', prefix, 'a non-empty string');
    }
    if (typeof clock !== 'function') {
      throw new SluiceConfigError('clock', clock, 'a function returning ms since the Unix epoch');
    }
    if (topK !== undefined && (!Number.isSafeInteger(topK) || topK < 1)) {
      throw new SluiceConfigError('topK', topK, 'an integer >= 1');
    }
    enableOperations();
    this.prefix = prefix;
    this.#sync = sync;
    this.#clock = clock;
    this.#snapshot = operationsSnapshot(sync, prefix)!;
    if (syncMs !== undefined) this.#snapshot.setSyncMs(parseWholeMs('syncMs', syncMs));
    if (topK !== undefined) this.#snapshot.topK = topK;
  }

  /** Whether entries reach other processes (`false`: this process only, `MemoryStore`). */
  get shared(): boolean {
    return this.#sync.shared;
  }

  /**
   * Bans `subject` for `options.for`: its requests are answered 429 with `Retry-After` =
   * what is left of the ban, before any limit is charged. Replaces an earlier ban.
   * @throws {@link SluiceConfigError} naming `subject` or `for` (required).
   */
  ban(subject: SubjectInput, options: BanOptions): Promise<OperationEntry> {
    const s = normaliseSubject(subject);
    const forMs = required(options, 'for', 'ban(subject, { for })');
    return this.#put('ban', s, forMs, options.reason);
  }

  /**
   * Lifts the ban on `subject` (nothing happens when there is none), and for an IPv6
   * `{ ip }` the ban an earlier version wrote for its /64.
   */
  async unban(subject: SubjectInput): Promise<void> {
    const s = normaliseSubject(subject);
    const earlier = earlierIpId('ban', s);
    if (earlier !== undefined) await this.#sync.remove(this.prefix, earlier);
    return this.remove(entryId('ban', s));
  }

  /**
   * Lets `subject` through every limit, uncharged and without headers (a partner's
   * network). A string is a CIDR (`'10.0.0.0/8'`, `'2001:db8::/32'`; a bare address is
   * its /32 or /128).
   * @throws {@link SluiceConfigError} naming `subject` or `for`.
   */
  allow(subject: string | SubjectInput, options: ListOptions = {}): Promise<OperationEntry> {
    const s = normaliseSubject(subject, 'subject', true);
    return this.#put('allow', s, optional(options, 'allow'), options.reason);
  }

  /**
   * Denies `subject`: 403 with the configured body style. A string is a CIDR.
   * @throws {@link SluiceConfigError} naming `subject` or `for`.
   */
  deny(subject: string | SubjectInput, options: ListOptions = {}): Promise<OperationEntry> {
    const s = normaliseSubject(subject, 'subject', true);
    return this.#put('deny', s, optional(options, 'deny'), options.reason);
  }

  /**
   * Replaces `subject`'s limits (or its limit named `options.name`) by `limit`, a limit in
   * a form routes take (`'1000/1m'`, `'throttle:600,1'`), from its next decision, on the
   * same keys: what was counted carries over.
   * @throws {@link SluiceConfigError} naming `subject`, `limit` (not a limit), `for` or `name`.
   */
  override(
    subject: SubjectInput,
    limit: string,
    options: OverrideOptions,
  ): Promise<OperationEntry> {
    const s = normaliseSubject(subject);
    if ('cidr' in s) {
      throw new SluiceConfigError(
        'subject',
        subject,
        'an { ip }, { user } or { key } subject (an override of a CIDR is not supported)',
      );
    }
    parseOverrideLimit(limit);
    const forMs = required(options, 'for', 'override(subject, limit, { for })');
    const name = options.name;
    if (name !== undefined && (typeof name !== 'string' || !LIMIT_NAME.test(name))) {
      throw new SluiceConfigError('name', name, LIMIT_NAME_FORM);
    }
    this.#refuseUnoverridable(s, name);
    return this.#put('override', s, forMs, options.reason, limit, name);
  }

  /**
   * Throws when a limiter of this process on this store and prefix would be reached by the
   * override but cannot take it: a concurrency or adaptive limit counts requests in flight,
   * and an override is a rate (a count per period). Never ignored silently.
   */
  #refuseUnoverridable(subject: OperationSubject, name: string | undefined): void {
    for (const limiter of this.#snapshot.limiters()) {
      const kind = limiter.unoverridable?.(subject, name);
      if (kind === undefined) continue;
      const what = name === undefined ? 'a RateLimiter key' : `the limit "${name}"`;
      const why =
        kind === 'Limit.adaptive'
          ? 'caps requests in flight in each process, following latency, not per subject'
          : 'caps requests in flight, not requests per period';
      throw new SluiceConfigError(name === undefined ? 'subject' : 'name', name ?? subject, '', {
        message:
          `sluice: invalid override of ${what}: it is a ${kind} limit, which ${why}; an ` +
          `override is a rate (a count per period) and cannot change it. Override a rate ` +
          `limit, or change the ${kind} limit in the configuration`,
      });
    }
  }

  /** Removes an entry, given as returned by `list()` or by its id (no error when absent). */
  async remove(entry: OperationEntry | string): Promise<void> {
    const id = typeof entry === 'string' ? entry : entry?.id;
    if (typeof id !== 'string' || id === '') {
      throw new SluiceConfigError('entry', entry, 'an entry from list() or its id');
    }
    await this.#sync.remove(this.prefix, id);
    await this.#snapshot.refresh();
  }

  /** The entries in force, read from the store, by precedence then subject. */
  async list(): Promise<OperationEntry[]> {
    const now = this.#clock();
    const { entries } = await this.#sync.load(this.prefix);
    return entries
      .filter((e) => e.until === null || e.until > now)
      .sort((a, b) => PRECEDENCE[a.kind] - PRECEDENCE[b.kind] || (a.id < b.id ? -1 : 1));
  }

  /**
   * What applies to `subject` (its entries in force, until when it is blocked) and where
   * its keys stand under the limits registered by limiters of this process on this store
   * and prefix (peeked: nothing is charged; a store round trip per key).
   */
  async inspect(subject: SubjectInput): Promise<Inspection> {
    const s = normaliseSubject(subject, 'subject', true);
    const entries = (await this.list()).filter((e) => applies(e.subject, s));
    let blockedUntil: number | null = null;
    if (!entries.some((e) => e.kind === 'allow')) {
      for (const e of entries) {
        if (e.kind === 'deny' || e.kind === 'ban') {
          const until = e.until ?? Number.POSITIVE_INFINITY;
          if (blockedUntil === null || until > blockedUntil) blockedUntil = until;
        }
      }
    }
    const now = this.#clock();
    const limits: InspectedLimit[] = [];
    if (!('cidr' in s)) {
      for (const limiter of this.#snapshot.limiters())
        limits.push(...(await limiter.inspect(s, now)));
    }
    return { subject: s, entries, blockedUntil, limits };
  }

  /**
   * This process's most-denied subjects on this store and prefix (by limits, bans and
   * denies alike), most first: Space-Saving over `topK` counters, so memory stays bounded.
   * Ids are hashed unless `options.ids` is `true`.
   */
  top(n = 10, options: { ids?: boolean } = {}): TopEntry[] {
    if (!Number.isSafeInteger(n) || n < 0) throw new SluiceConfigError('n', n, 'an integer >= 0');
    const rows = this.#snapshot.denials?.top(n) ?? [];
    return options.ids === true ? rows : rows.map((r) => ({ ...r, id: hashedId(r.id) }));
  }

  // biome-ignore lint/complexity/useMaxParams: one private writer for the four kinds
  async #put(
    kind: OperationKind,
    subject: OperationSubject,
    forMs: number | undefined,
    reason: unknown,
    limit?: string,
    name?: string,
  ): Promise<OperationEntry> {
    if (reason !== undefined && (typeof reason !== 'string' || reason.length > 1000)) {
      throw new SluiceConfigError('reason', reason, 'a string of at most 1000 characters');
    }
    const at = this.#clock();
    const entry: OperationEntry = {
      id: entryId(kind, subject, name),
      kind,
      subject,
      until: forMs === undefined ? null : at + forMs,
      at,
    };
    if (reason !== undefined) entry.reason = reason;
    if (limit !== undefined) entry.limit = limit;
    if (name !== undefined) entry.name = name;
    await this.#sync.put(this.prefix, entry);
    await this.#snapshot.refresh();
    return entry;
  }
}

/** The id of `top()` without `{ ids: true }`. */
export function hashedId(id: string): string {
  return sha256Base64url(id).slice(0, 16);
}

function required(options: unknown, option: 'for', where: string): number {
  if (
    options === null ||
    typeof options !== 'object' ||
    (options as { for?: unknown }).for === undefined
  ) {
    throw new SluiceConfigError(option, undefined, `a duration (ms or '1h') in ${where}`, {
      message: `sluice: ${where} needs "for": how long it lasts (ms or a string like '1h'); a ban or override never lasts forever`,
    });
  }
  return parseWholeMs(option, (options as { for: unknown }).for);
}

function optional(options: ListOptions, what: string): number | undefined {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, `an object { for?, reason? } in ${what}()`);
  }
  return options.for === undefined ? undefined : parseWholeMs('for', options.for);
}

/**
 * Whether an entry about `entry` applies to `subject`: the same subject, a CIDR holding its
 * IP, or a wildcard user or key pattern matching it.
 */
function applies(entry: OperationSubject, subject: OperationSubject): boolean {
  if (subjectId(entry) === subjectId(subject)) return true;
  if ('user' in entry && 'user' in subject) return covers(entry.user, subject.user);
  if ('key' in entry && 'key' in subject) return covers(entry.key, subject.key);
  // A CIDR holding the IP, or an earlier version's `{ ip }` entry naming its group.
  const network =
    'cidr' in entry ? entry.cidr : 'ip' in entry && entry.ip.includes('/') ? entry.ip : undefined;
  if (network !== undefined && 'ip' in subject) {
    return new CidrSet([[network, true]]).match(subject.ip) === true;
  }
  return false;
}
