import { HTTP_OPERATIONS } from '../http/limiter/operated.js';
import type { LimitPlan } from '../http/limiter/plan.js';
import { subnetOf } from '../http/request/keys.js';
import type { Limit } from '../limits/limit.js';
import type { RequestView } from '../limits/request-view.js';
import { CidrSet } from './cidr.js';
import type { OperationEntry, OperationSubject, OperationsSync } from './entry.js';
import { Lists } from './lists.js';
import { MemoryOperationsSync } from './memory-sync.js';
import { parseOverrideLimit } from './override.js';
import { planInspector } from './plan-inspect.js';
import { provideSnapshots } from './registry.js';
import { SpaceSaving } from './top-k.js';

/** An override in force: its entry and parsed limit. */
export interface Override {
  readonly entry: OperationEntry;
  readonly limit: Limit;
  /** The named limit it narrows to; `undefined`: every limit of the subject. */
  readonly name: string | undefined;
}

/** What the operations say about one request (see {@link OperationsSnapshot.check}). */
export type OperationMatch =
  | { readonly kind: 'allow' | 'deny' | 'ban'; readonly entry: OperationEntry }
  | { readonly kind: 'override'; readonly overrides: readonly Override[] };

/** A limiter that can tell where a subject's keys stand (for `LimitOperations.inspect`). */
export interface Inspectable {
  inspect(subject: OperationSubject, now: number): Promise<InspectedKey[]>;
  /**
   * The kind of limit an override of `subject` (narrowed to `name`) would reach but cannot
   * change (`'Limit.concurrent'`, `'Limit.adaptive'`): `override()` refuses it. `undefined`:
   * none.
   */
  unoverridable?(subject: OperationSubject, name: string | undefined): string | undefined;
}

/** One key of one limit, peeked. */
export interface InspectedKey {
  name: string | undefined;
  key: string;
  remaining: number;
  limit: number;
  resetMs: number;
}

/**
 * Cloudflare Workers (workerd, `navigator.userAgent` `'Cloudflare-Workers'`) end a request's
 * timers with it, and I/O from one request's timer on behalf of another fails: there the
 * version check rides on decisions instead of a timer (at most one per `syncMs`, in the
 * deciding request). Read once, at load.
 */
const TIMERS_END_WITH_REQUEST: boolean =
  (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent ===
  'Cloudflare-Workers';

/** Default of `syncMs`: how often a process re-checks the store's version. */
export const DEFAULT_SYNC_MS = 5000;

/**
 * The operator entries of one (store, prefix) as every limiter on them decides from: loaded
 * once, kept current by the store's notifications and a version check every `syncMs`, and
 * compiled into maps and CIDR sets so a decision asks it with no store round trip. Entries
 * expire locally by their `until`. One per (store operations, prefix) in a process
 * ({@link operationsSnapshot}).
 */
export class OperationsSnapshot {
  readonly sync: OperationsSync;
  readonly prefix: string;
  /**
   * `false` when no entry is in force: limiters then skip {@link OperationsSnapshot.live}
   * and {@link OperationsSnapshot.check} (not even reading the clock). `true` until the
   * first {@link OperationsSnapshot.live}, which starts syncing.
   */
  active = true;
  /**
   * Where a request's timers and I/O end with it (Workers): the load a decision started,
   * which {@link OperationsSnapshot.live} answers instead of `true` / `false` once, for the
   * deciding request to wait for (a reply after its response would be cancelled, and a
   * request answered from the over-limit cache makes no store call to outlast it).
   * Always undefined elsewhere.
   */
  reload: Promise<void> | undefined = undefined;
  /** The version of the entries compiled (-1: none loaded yet). */
  version = -1;
  /** Every entry loaded, expired ones included until the next compile. */
  entries: readonly OperationEntry[] = [];
  /** This process's denied subjects (Space-Saving), made on the first denial. */
  denials: SpaceSaving | undefined = undefined;
  /** Counters of {@link OperationsSnapshot.denials}. */
  topK = 1024;
  #allow = new Lists<OperationEntry>();
  #deny = new Lists<OperationEntry>();
  #ban = new Lists<OperationEntry>();
  #overrides = new Lists<Override[]>();
  /**
   * When {@link OperationsSnapshot.live} must look again (ms): the next entry's expiry, or
   * the next version check where decisions carry it; -Infinity before the first decision.
   */
  #nextExpiry = Number.NEGATIVE_INFINITY;
  /** When the next entry expires (ms). */
  #nextUntil = Number.POSITIVE_INFINITY;
  /** Whether an entry is in force (what {@link OperationsSnapshot.live} answers). */
  #inForce = true;
  /** The version is checked by decisions, not a timer (Workers): when the next is due (ms). */
  #polling = false;
  /** -Infinity: polling, the first check not yet timed; +Infinity: not polling. */
  #nextCheck = Number.POSITIVE_INFINITY;
  #syncMs = DEFAULT_SYNC_MS;
  #timer: ReturnType<typeof setInterval> | undefined;
  #unsubscribe: (() => void) | undefined;
  #loading: Promise<void> | undefined;
  #again = false;
  #closed = false;
  readonly #limiters = new Set<WeakRef<Inspectable>>();

  constructor(sync: OperationsSync, prefix: string) {
    this.sync = sync;
    this.prefix = prefix;
    const syncMs = sync.syncMs;
    if (typeof syncMs === 'number' && Number.isFinite(syncMs) && syncMs > 0) this.#syncMs = syncMs;
  }

  /**
   * Whether any entry is in force at `now` (ms): the hot path's first question. Drops
   * expired entries when the earliest `until` has passed, and on the first call starts
   * syncing (deferred to the first decision: Workers refuse timers and I/O at module scope).
   * On Workers, the first decision after each `syncMs` gets the reload it started instead
   * ({@link OperationsSnapshot.reload}), to wait for before asking.
   */
  live(now: number): boolean | Promise<void> {
    if (now >= this.#nextExpiry) this.#expire(now);
    const reload = this.reload;
    if (reload === undefined) return this.#inForce;
    this.reload = undefined;
    return reload;
  }

  /**
   * What applies to a request whose client IP is `ip` (raw text), user id `user` and `key`
   * option answer (or `RateLimiter` key) `key`, by precedence: allow > deny > ban >
   * override. An `{ ip }` entry applies when the request's own group holds its address:
   * IPv6 grouped by `subnet`, the limiter's `ipv6Subnet` (a function of `view`, asked only
   * for an IPv6 client with `{ ip }` entries in force). `undefined`: nothing (the configured
   * limits decide). Call after {@link OperationsSnapshot.live} answered `true`.
   */
  check(
    ip: string | undefined,
    user: string | undefined,
    key: string | undefined,
    subnet: number | ((req: RequestView) => number) = 64,
    view?: RequestView,
  ): OperationMatch | undefined {
    // perf: the request is held in fields for the lookups below, not in a closure per call.
    this.#subnet = subnet;
    this.#view = view;
    const match = this.#match(ip === undefined || ip === '' ? undefined : ip, user, key);
    this.#view = undefined; // the request is not held past its decision
    return match;
  }

  #match(
    at: string | undefined,
    user: string | undefined,
    key: string | undefined,
  ): OperationMatch | undefined {
    const allowed = this.#find(this.#allow, at, user, key);
    if (allowed !== undefined) return { kind: 'allow', entry: allowed };
    const denied = this.#find(this.#deny, at, user, key);
    if (denied !== undefined) return { kind: 'deny', entry: denied };
    const banned = this.#find(this.#ban, at, user, key);
    if (banned !== undefined) return { kind: 'ban', entry: banned };
    const o = this.#overrides;
    if (o.empty) return undefined;
    // An exact subject first, then the winning pattern (a user's, then a key's).
    const overrides =
      (user === undefined ? undefined : o.user.get(user)) ??
      (key === undefined ? undefined : o.key.get(key)) ??
      (at === undefined || o.ip.size === 0 ? undefined : o.ip.match(at, this.#bits)) ??
      (user === undefined ? undefined : o.userPatterns?.match(user)) ??
      (key === undefined ? undefined : o.keyPatterns?.match(key));
    return overrides === undefined ? undefined : { kind: 'override', overrides };
  }

  /** The request {@link OperationsSnapshot.check} is asking about: its `ipv6Subnet`, view. */
  #subnet: number | ((req: RequestView) => number) = 64;
  #view: RequestView | undefined = undefined;
  /** The prefix length the checked request's IPv6 client is grouped by. */
  readonly #bits = (): number => {
    const s = this.#subnet;
    return typeof s === 'number' ? s : subnetOf(this.#view!, s);
  };

  #find(
    lists: Lists<OperationEntry>,
    at: string | undefined,
    user: string | undefined,
    key: string | undefined,
  ): OperationEntry | undefined {
    if (lists.empty) return undefined;
    return (
      (user === undefined || lists.user.size === 0 ? undefined : lists.user.get(user)) ??
      (key === undefined || lists.key.size === 0 ? undefined : lists.key.get(key)) ??
      (at === undefined || lists.ip.size === 0 ? undefined : lists.ip.match(at, this.#bits)) ??
      (at === undefined || lists.cidrs === undefined ? undefined : lists.cidrs.match(at)) ??
      (user === undefined ? undefined : lists.userPatterns?.match(user)) ??
      (key === undefined ? undefined : lists.keyPatterns?.match(key))
    );
  }

  /** Counts a denial of `subjectId` (`'ip:…'`, `'user:…'`, `'key:…'`) for `top()`. */
  denied(subjectId: string): void {
    if (this.denials === undefined) this.denials = new SpaceSaving(this.topK);
    this.denials.add(subjectId);
  }

  /** Registers a limiter for `inspect()`; held weakly. */
  register(limiter: Inspectable): void {
    const limiters = this.#limiters;
    limiters.add(new WeakRef(limiter));
    // Limiters made and dropped by the thousand (one per request) leave no trail of refs.
    if (limiters.size % 1024 === 0) this.limiters();
  }

  /** Registers an HTTP limiter's plan for `inspect()`; its inspector lives as long as the plan. */
  registerPlan(plan: LimitPlan): void {
    let inspector = plans.get(plan);
    if (inspector === undefined) {
      inspector = planInspector(plan);
      plans.set(plan, inspector);
    }
    this.register(inspector);
  }

  /** The registered limiters still alive. */
  limiters(): Inspectable[] {
    const out: Inspectable[] = [];
    for (const ref of this.#limiters) {
      const limiter = ref.deref();
      if (limiter === undefined) this.#limiters.delete(ref);
      else out.push(limiter);
    }
    return out;
  }

  /** Sets how often the version is re-checked (ms), re-arming the timer if it runs. */
  setSyncMs(ms: number): void {
    this.#syncMs = ms;
    if (this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      this.#arm();
    }
  }

  /** Loads the entries now (after a write of this process, so its next decision sees it). */
  refresh(): Promise<void> {
    this.#start();
    if (this.#loading !== undefined) {
      this.#again = true;
      return this.#loading;
    }
    const loadNow = (this.sync as { loadNow?: (p: string) => LoadResult }).loadNow;
    if (typeof loadNow === 'function') {
      try {
        const { version, entries } = loadNow.call(this.sync, this.prefix);
        this.#apply(version, entries);
      } catch {
        // As a failed load below: the last snapshot stays; the next version check retries
        // (a decision never throws for it: SqliteStore reads synchronously).
      }
      return Promise.resolve();
    }
    const loading = this.sync.load(this.prefix).then(
      ({ version, entries }) => {
        if (this.#loading === loading) this.#loading = undefined;
        if (version < this.version) return; // a load given up, answered after a newer one
        this.#apply(version, entries);
        if (this.#again) {
          this.#again = false;
          return this.refresh();
        }
      },
      () => {
        // A failed load keeps the last snapshot; the next change or version check retries.
        if (this.#loading === loading) this.#loading = undefined;
      },
    );
    this.#loading = loading;
    return loading;
  }

  /** Stops syncing (the store is closing). The snapshot keeps deciding from what it has. */
  close(): void {
    this.#closed = true;
    this.#polling = false;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #started = false;

  #start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#unsubscribe = this.sync.subscribe(this.prefix, (version) => {
      if (version !== this.version) void this.refresh();
    });
    this.#arm();
  }

  #arm(): void {
    if (!this.sync.shared || this.#closed) return;
    if (TIMERS_END_WITH_REQUEST) {
      this.#polling = true;
      this.#nextCheck = Number.NEGATIVE_INFINITY;
      this.active = true; // perf: a clock read per decision, for the version check it carries
      return;
    }
    const timer = setInterval(() => this.#checkVersion(), this.#syncMs);
    (timer as { unref?: () => void }).unref?.();
    this.#timer = timer;
  }

  #checkVersion(): void {
    this.sync.version(this.prefix).then(
      (version) => {
        if (version !== this.version) void this.refresh();
      },
      () => undefined,
    );
  }

  #expire(now: number): void {
    if (!this.#started) {
      // The first decision: compile what is there (synchronously on an in-process store).
      this.#nextExpiry = Number.POSITIVE_INFINITY;
      const first = this.refresh();
      if (this.#polling) this.reload = first;
    }
    if (this.#polling && now >= this.#nextCheck) {
      // The first decision's refresh is loading: the first check is one syncMs later. Then a
      // load, not a version check, which the deciding request waits for (`reload`). One a
      // request left unanswered is given up.
      if (this.#nextCheck !== Number.NEGATIVE_INFINITY) {
        this.#loading = undefined;
        this.reload = this.refresh();
      }
      this.#nextCheck = now + this.#syncMs;
    }
    if (now >= this.#nextUntil) this.#compile(this.entries, now);
    this.#nextExpiry = Math.min(this.#nextUntil, this.#nextCheck);
  }

  #apply(version: number, entries: readonly OperationEntry[]): void {
    this.version = version;
    // Compiled whole; the next decision drops what its clock says has expired.
    this.#compile(entries, Number.NEGATIVE_INFINITY);
  }

  /** Builds the lookup structures from the entries in force at `now`. */
  #compile(all: readonly OperationEntry[], now: number): void {
    const allow = new Lists<OperationEntry>();
    const deny = new Lists<OperationEntry>();
    const ban = new Lists<OperationEntry>();
    const overrides = new Lists<Override[]>((a, b) => narrowedFirst([...a, ...b]));
    const cidrs = { allow: [] as [string, OperationEntry][], deny: [], ban: [] } as Record<
      'allow' | 'deny' | 'ban',
      [string, OperationEntry][]
    >;
    let next = Number.POSITIVE_INFINITY;
    const kept: OperationEntry[] = [];
    for (const entry of all) {
      if (entry.until !== null && entry.until <= now) continue;
      kept.push(entry);
      if (entry.until !== null && entry.until < next) next = entry.until;
      const s = entry.subject;
      if (entry.kind === 'override') {
        let limit: Limit;
        try {
          limit = parseOverrideLimit(entry.limit);
        } catch {
          continue; // written by something else than LimitOperations: ignored, never thrown
        }
        const o: Override = { entry, limit, name: entry.name };
        const add = (list: Override[] | undefined) => {
          if (list === undefined) return [o];
          list.push(o);
          return list;
        };
        if ('ip' in s) overrides.ip.add(s.ip, [o]);
        else if ('user' in s) overrides.file('user', s.user, add);
        else if ('key' in s) overrides.file('key', s.key, add);
        continue;
      }
      const lists = entry.kind === 'allow' ? allow : entry.kind === 'deny' ? deny : ban;
      if ('cidr' in s) cidrs[entry.kind].push([s.cidr, entry]);
      else if ('ip' in s) lists.ip.add(s.ip, entry);
      else if ('user' in s) lists.file('user', s.user, () => entry);
      else if ('key' in s) lists.file('key', s.key, () => entry);
    }
    for (const [kind, lists] of [
      ['allow', allow],
      ['deny', deny],
      ['ban', ban],
    ] as const) {
      if (cidrs[kind].length > 0) {
        try {
          lists.cidrs = new CidrSet(cidrs[kind]);
        } catch {
          // An unparsable CIDR written by something else: that kind's CIDRs are skipped.
        }
      }
    }
    for (const map of [overrides.user, overrides.key]) {
      for (const list of map.values()) narrowedFirst(list);
    }
    overrides.freeze(narrowedFirst);
    allow.freeze();
    deny.freeze();
    ban.freeze();
    this.entries = kept;
    this.#allow = allow;
    this.#deny = deny;
    this.#ban = ban;
    this.#overrides = overrides;
    this.#nextUntil = next;
    this.#nextExpiry = Math.min(next, this.#nextCheck);
    this.#inForce = kept.length > 0;
    this.active = this.#inForce || this.#polling;
  }
}

type LoadResult = { version: number; entries: OperationEntry[] };

/** Narrowed overrides first: a limit takes the first override naming it, else a general one. */
function narrowedFirst(list: Override[]): Override[] {
  return list.sort((a, b) => (a.name === undefined ? 1 : 0) - (b.name === undefined ? 1 : 0));
}

/** The inspector of each registered plan, held as long as its plan. */
const plans = new WeakMap<LimitPlan, Inspectable>();

// The limiters reach snapshots through registry.ts, which makes them only once this module
// is loaded: a bundle with neither LimitOperations nor a shared store leaves all of it out.
const PROVIDED: Parameters<typeof provideSnapshots>[0] = {
  make: (sync, prefix) => new OperationsSnapshot(sync, prefix),
  memorySync: () => new MemoryOperationsSync(),
  http: HTTP_OPERATIONS,
};
provideSnapshots(PROVIDED);

/**
 * Keeps the operations machinery in a bundle and makes limiters obey entries: a store whose
 * `operations` carry entries from other processes (`RedisStore`) calls it when constructed.
 * `LimitOperations` needs no call. Idempotent; costs nothing.
 *
 * @example
 * ```ts
 * constructor(options) { enableOperations(); this.operations = new RedisOperationsSync(…); }
 * ```
 */
export function enableOperations(): void {
  // Loading this module registered them already; registering again is what keeps this
  // module in a bundle (a bundler drops an empty function's call, then the module with it).
  provideSnapshots(PROVIDED);
}
