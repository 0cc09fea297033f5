import { STATUS_CODES } from 'node:http';
import type { Algorithm } from './algorithm.js';
import type { Decision } from './decision.js';
import { SluiceConfigError } from './errors.js';
import { fixedWindow } from './fixed-window.js';
import {
  ceilSeconds,
  type HeaderSetter,
  type HeaderStyle,
  type HeadersOption,
  headerNames,
  type LimitPolicy,
  pushPair,
  retryAfterSeconds,
  writeRateLimitHeaders,
} from './headers.js';
import {
  defaultLimitAlgorithm,
  type Limit,
  type LimitAlgorithmFactory,
  limitAlgorithm,
} from './limit.js';
import { type MemoryKeySpace, MemoryStore } from './memory-store.js';
import { ipSubject, keySegment } from './request-key.js';
import type { RequestView } from './request-view.js';
import { slidingLog } from './sliding-log.js';
import { slidingWindow } from './sliding-window.js';
import type { Store } from './store.js';
import { guardedStore, type StoreErrorPolicy, type StoreFailureLogger } from './store-failure.js';
import {
  type LimitInput,
  type ResolvedLimits,
  resolveLimitInput,
  type ThrottleRegistry,
  throttles,
} from './throttle-registry.js';
import { integerAtLeast } from './validate.js';

/** Algorithm names accepted by the `algorithm` option, each applied to a limit's quota. */
export type AlgorithmName = 'gcra' | 'fixed-window' | 'sliding-window' | 'sliding-log';

/**
 * The options every adapter's `rateLimit(options)` and `throttle(limit, options)` accept
 * (DESIGN §7). Parsed and validated once, when the middleware is created.
 *
 * @typeParam Req - the framework's request type (what `user` receives).
 */
export interface HttpLimitOptions<Req = unknown> {
  /**
   * The limit: a throttle string (`'throttle:60,1'` = 60 per minute, `'throttle:api'` = a
   * named limiter, `'10/s'`), a `Limit`, or an array (the request must pass every one; a
   * request denied by any consumes from none). Default `'throttle:60,1'` (Laravel's default).
   */
  limit?: LimitInput;
  /**
   * The algorithm each limit's quota runs on: a name, or a factory
   * `({ limit, periodMs }) => Algorithm`. Default `'gcra'` with burst = the quota.
   */
  algorithm?: AlgorithmName | LimitAlgorithmFactory;
  /** Where state lives. Default: one in-process `MemoryStore` shared by every middleware. */
  store?: Store;
  /** The time in **ms since the Unix epoch**. Default `Date.now`. */
  clock?: () => number;
  /** First segment of every key. Default `'sluice'`. */
  prefix?: string;
  /** Where `'throttle:<name>'` is looked up. Default: the exported `throttles` registry. */
  throttles?: ThrottleRegistry;
  /**
   * The user id a request's key is built from, given the **framework's** request. Default:
   * Express / Fastify `req.user?.id`, Koa `ctx.state.user?.id`. Requests without a user are
   * keyed by client IP.
   */
  user?: (req: Req) => string | number | undefined | null;
  /** Replaces the whole key derivation (route and subject): `<prefix>:<limit name>:<key(req)>`. */
  key?: (req: RequestView) => string;
  /** IPv6 clients are grouped by this prefix length (1..128). Default 64. */
  ipv6Subnet?: number;
  /** Which headers to send (see `HeaderStyle`). Default `'legacy'` (`X-RateLimit-*`). */
  headers?: HeadersOption;
  /** Requests for which it returns `true` are not limited and get no headers. */
  skip?: (req: RequestView) => boolean;
  /** Called once for each denied request, before the 429 is sent. */
  onLimited?: (req: RequestView, decision: Decision) => void;
  /**
   * The 429 body's `message`, or a function returning the whole body (a string is sent as
   * is, an object as JSON). Default `'Rate limit exceeded, retry in N seconds'`.
   */
  message?: string | ((req: RequestView, decision: Decision) => string | object);
  /** Status of a denied request. Default 429. */
  statusCode?: number;
  /** What to do while the store fails (see `StoreErrorPolicy`). Default `'insurance'`. */
  onStoreError?: StoreErrorPolicy;
  /** Where store-failure notices go. Default `console`. */
  logger?: StoreFailureLogger;
}

/** What the core answers for one request; the adapter writes it to the response. */
export interface HttpVerdict {
  /** `false`: answer with `statusCode`, `headers` and `body`, and do not run the handler. */
  allowed: boolean;
  /** 429 (or the `statusCode` option) when denied. */
  statusCode: number;
  /** Rate-limit headers (and `Retry-After` when denied), as `[name, value]` pairs. */
  headers: [string, string][];
  /** The 429 body when denied: a string (JSON by default) or an object. */
  body: string | object | undefined;
  /**
   * The body's media type when denied: `application/json; charset=utf-8` for the default
   * body and for an object (which the adapter serialises as JSON), `text/plain;
   * charset=utf-8` for a string returned by a `message` function (sent as the user made it).
   */
  contentType: string | undefined;
  /** The most restrictive decision: what `req.rateLimit` exposes. */
  decision: Decision;
  /** Every limit's decision, in order. */
  decisions: Decision[];
  /**
   * Writes {@link HttpVerdict.headers} to an adapter's response, one `set(target, name,
   * value)` per header, without building the pairs (the adapters' hot path).
   *
   * @param lowercase - pass the names in lower case (`x-ratelimit-limit`): for a framework
   *   that lowercases every name itself (Fastify), which then has nothing to convert.
   *   Default `false`: the names as DESIGN §6 writes them (`X-RateLimit-Limit`).
   */
  writeHeaders<T>(target: T, set: HeaderSetter<T>, lowercase?: boolean): void;
}

/**
 * Where a limit's keys for one route and kind of subject live: a key's text is
 * `prefix + subject`. On a `MemoryStore`, `space` is the store's key space of `prefix`
 * (`MemoryStore.space`), so the store's map is searched by the short subject, not by a
 * key string built per request: V8 caches a string's hash on the string, and the IP an
 * adapter reports is the same string object on every request of a connection (hashing a
 * fresh 40-character key costs ~0.1 µs, more than the GCRA step).
 */
interface Scope {
  prefix: string;
  space: MemoryKeySpace | undefined;
}

/** A key of one request under one limit. */
interface Entry {
  scope: Scope;
  subject: string;
  algorithm: Algorithm;
  cost: number;
}

/** Decides `entry` with `cost` (0: a peek). */
function consumeAt(store: Store, entry: Entry, cost: number, now: number) {
  const { scope, subject } = entry;
  return scope.space !== undefined
    ? (store as MemoryStore).consumeIn(scope.space, subject, entry.algorithm, cost, now)
    : store.consume(scope.prefix + subject, entry.algorithm, cost, now);
}

interface HttpConfig<Req> {
  limits: ResolvedLimits;
  algorithmFactory: LimitAlgorithmFactory;
  /** The store decisions go to: the user's, behind a FailSafeStore unless a MemoryStore. */
  store: Store;
  /** The user's store itself: what "the same key" means across limiters (see `Charge`). */
  origin: Store;
  clock: () => number;
  prefix: string;
  user: (req: Req) => string | number | undefined | null;
  key: ((req: RequestView) => string) | undefined;
  ipv6Subnet: number;
  headerStyles: readonly HeaderStyle[];
  skip: ((req: RequestView) => boolean) | undefined;
  onLimited: ((req: RequestView, decision: Decision) => void) | undefined;
  message: HttpLimitOptions['message'];
  statusCode: number;
}

let sharedStore: MemoryStore | undefined;

/**
 * Keys already charged for a request (a request is charged once per key, DESIGN §6): a
 * short list on the framework's request object, under a symbol. Looked up when the same
 * request reaches a second limiter (global and per-route); one small record per charge.
 */
const kCharged = Symbol('sluice.charged');
interface Charge {
  /** The user's store (limiters on different stores never share a key). */
  store: Store;
  prefix: string;
  subject: string;
  decision: Decision;
  next: Charge | undefined;
}
type ChargedRequest = { [kCharged]?: Charge };

/** The decision this request (its `ledger`) was already charged for `e` in `store`, if any. */
function chargedFor(raw: ChargedRequest | undefined, store: Store, e: Entry): Decision | undefined {
  for (let c = raw?.[kCharged]; c !== undefined; c = c.next) {
    if (c.subject === e.subject && c.prefix === e.scope.prefix && c.store === store) {
      return c.decision;
    }
  }
  return undefined;
}

/** Records an admitted charge of this request (its `ledger`) for `e` in `store`. */
function remember(
  raw: ChargedRequest | undefined,
  store: Store,
  e: Entry,
  decision: Decision,
): void {
  if (raw !== undefined && decision.allowed) {
    const next = raw[kCharged];
    raw[kCharged] = { store, prefix: e.scope.prefix, subject: e.subject, decision, next };
  }
}

const requestOf = (view: RequestView): ChargedRequest | undefined => {
  const ledger = view.ledger ?? view.raw;
  return typeof ledger === 'object' && ledger !== null ? (ledger as ChargedRequest) : undefined;
};

/** Routes whose key prefix a limit keeps (routes are patterns, so few; this bounds odd adapters). */
const MAX_CACHED_ROUTES = 1000;

/**
 * Algorithms a limiter keeps by quota; and per-request limits it keeps prepared, with their
 * routes' scopes, counted together.
 */
const MAX_CACHED_LIMITS = 1000;

const ALGORITHMS: Record<AlgorithmName, LimitAlgorithmFactory> = {
  gcra: defaultLimitAlgorithm,
  'fixed-window': ({ limit, periodMs }) => fixedWindow({ limit, window: periodMs }),
  'sliding-window': ({ limit, periodMs }) => slidingWindow({ limit, window: periodMs }),
  'sliding-log': ({ limit, periodMs }) => slidingLog({ limit, window: periodMs }),
};

const HEADER_STYLES: readonly HeaderStyle[] = ['legacy', 'draft-6', 'draft-7', 'draft-8'];

/**
 * The HTTP decision logic shared by the Express, Fastify and Koa adapters: keys (DESIGN
 * §5), headers and the 429 answer (§6), several limits per route (all or nothing), skip,
 * onLimited, and charging a request once per key. It imports no framework: an adapter
 * builds a {@link RequestView}, calls {@link HttpLimiter.check}, and writes the verdict.
 *
 * @typeParam Req - the framework's request type.
 * @throws {@link SluiceConfigError} at construction for any invalid option (named).
 */
export class HttpLimiter<Req = unknown> {
  readonly #config: HttpConfig<Req>;
  /** Algorithms by quota (`<maxAttempts>/<periodMs>`): at most MAX_CACHED_LIMITS, cleared when full. */
  readonly #algorithms = new Map<string, Algorithm>();
  /**
   * Per-request limits already prepared, by `Limit.prefix` (see `#perRequestLimit`). They
   * and their routes' scopes are counted in `#perRequestCount`: at most MAX_CACHED_LIMITS,
   * cleared when a limit is to be added past it.
   */
  readonly #perRequest = new Map<string | undefined, Prepared[]>();
  #perRequestCount = 0;
  readonly #static: Prepared[] | undefined;

  /**
   * @param options - the user's options.
   * @param defaultUser - the adapter's default `user` (e.g. `req => req.user?.id`).
   */
  constructor(
    options: HttpLimitOptions<Req> = {},
    defaultUser: (req: Req) => string | number | undefined | null = () => undefined,
  ) {
    this.#config = parseHttpOptions(options, defaultUser);
    // Limits that do not depend on the request get their names, algorithms and policy
    // strings computed once, here.
    this.#static = this.#config.limits.isStatic
      ? this.#prepare(this.#config.limits.limitsFor(undefined as never))
      : undefined;
  }

  /** The user id of a framework request (the `user` option or the adapter's default). */
  userOf(req: Req): string | number | undefined {
    const id = this.#config.user(req);
    return id === null ? undefined : id;
  }

  /**
   * Decides one request. Returns `undefined` when the request is skipped (no limit, no
   * headers); otherwise the verdict, synchronously when the store is synchronous
   * (`MemoryStore`), else as a promise. Never rejects for a store failure (see
   * `onStoreError`).
   */
  check(view: RequestView): HttpVerdict | Promise<HttpVerdict> | undefined {
    const c = this.#config;
    if (c.skip?.(view)) return undefined;
    const prepared = this.#static ?? this.#prepare(c.limits.limitsFor(view));
    if (prepared.length === 1) return this.#checkOne(view, prepared);
    if (prepared.length === 0) return undefined;
    const custom = this.#customSubject(view);
    const entries: Entry[] = new Array(prepared.length);
    for (let i = 0; i < prepared.length; i++) entries[i] = this.#entry(view, prepared[i]!, custom);
    const raw = requestOf(view);
    const now = c.clock();
    const decided = this.#consume(entries, now, raw);
    if (decided instanceof Promise)
      return decided.then((ds) => this.#verdict(view, prepared, ds, now));
    return this.#verdict(view, prepared, decided, now);
  }

  /** {@link HttpLimiter.check} for one limit: no arrays, no closures. */
  #checkOne(view: RequestView, prepared: Prepared[]): HttpVerdict | Promise<HttpVerdict> {
    const c = this.#config;
    const p = prepared[0]!;
    const entry = this.#entry(view, p, this.#customSubject(view));
    const raw = requestOf(view);
    const now = c.clock();
    const previous = chargedFor(raw, c.origin, entry);
    if (previous !== undefined) return this.#verdictOne(view, prepared, previous, now);
    const decision = consumeAt(c.store, entry, p.cost, now);
    if (decision instanceof Promise) {
      return decision.then((d) => {
        remember(raw, c.origin, entry, d);
        return this.#verdictOne(view, prepared, d, now);
      });
    }
    remember(raw, c.origin, entry, decision);
    return this.#verdictOne(view, prepared, decision, now);
  }

  /** The subject of the `key` option, when given: it replaces route and user/IP. */
  #customSubject(view: RequestView): string | undefined {
    const key = this.#config.key;
    return key === undefined ? undefined : keySegment(String(key(view)));
  }

  /**
   * The key of `view` under `p`: `<prefix>:<limit name>:` + the `key` option's subject, or
   * `Limit.by`'s whole key, or `<route>:user:<id>` / `<route>:ip:<subject>` (DESIGN §5).
   */
  #entry(view: RequestView, p: Prepared, custom: string | undefined): Entry {
    let scope: Scope;
    let subject: string;
    if (custom !== undefined) {
      scope = p.scope;
      subject = custom;
    } else if (p.byScope !== undefined) {
      scope = p.byScope;
      subject = '';
    } else if (view.userId !== undefined) {
      scope = this.#routeScopes(p, view.route).user;
      subject = keySegment(String(view.userId));
    } else {
      scope = this.#routeScopes(p, view.route).ip;
      subject = ipSubject(view.ip, this.#config.ipv6Subnet);
    }
    return { scope, subject, algorithm: p.algorithm, cost: p.cost };
  }

  /** The scopes of `<prefix>:<limit name>:<route>:`, made once per route and limit. */
  #routeScopes(p: Prepared, route: string): RouteScopes {
    let scopes = p.routes.get(route);
    if (scopes === undefined) {
      const prefix = `${p.scope.prefix}${keySegment(route)}:`;
      // Past the cap (an adapter reporting raw URLs) the scopes are made per request. Limits
      // made per request (a limiter without #static) get no store key space, and they and
      // their routes count against one budget (`#perRequestCount`).
      const perRequest = this.#static === undefined;
      const keep = perRequest
        ? this.#perRequestCount < MAX_CACHED_LIMITS
        : p.routes.size < MAX_CACHED_ROUTES;
      const lasting = keep && p.scope.space !== undefined;
      scopes = {
        ip: this.#scope(`${prefix}ip:`, lasting),
        user: this.#scope(`${prefix}user:`, lasting),
      };
      if (keep) {
        p.routes.set(route, scopes);
        if (perRequest) this.#perRequestCount++;
      }
    }
    return scopes;
  }

  /** A scope of `prefix`; with a key space of its own on a MemoryStore when `lasting`. */
  #scope(prefix: string, lasting: boolean): Scope {
    const store = this.#config.store;
    const space = lasting && store instanceof MemoryStore ? store.space(prefix) : undefined;
    return { prefix, space };
  }

  #consume(
    entries: Entry[],
    now: number,
    raw: ChargedRequest | undefined,
  ): Decision[] | Promise<Decision[]> {
    const store = this.#config.store;
    // Keys this request was already charged for (e.g. a global and a per-route limiter
    // with the same limit) are reported, not charged again.
    const todo: Entry[] = [];
    const decisions: (Decision | undefined)[] = new Array(entries.length);
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      const previous = chargedFor(raw, this.#config.origin, e);
      if (previous !== undefined) decisions[i] = previous;
      else todo.push(e);
    }
    const record = (results: Decision[]): Decision[] => {
      let j = 0;
      for (let i = 0; i < entries.length; i++) {
        if (decisions[i] === undefined) {
          const d = results[j++]!;
          decisions[i] = d;
          remember(raw, this.#config.origin, entries[i]!, d);
        }
      }
      return decisions as Decision[];
    };
    if (todo.length === 0) return decisions as Decision[];
    if (todo.length === 1) {
      const e = todo[0]!;
      const one = consumeAt(store, e, e.cost, now);
      return one instanceof Promise ? one.then((d) => record([d])) : record([one]);
    }
    const all = consumeAll(store, todo, now);
    return all instanceof Promise ? all.then(record) : record(all);
  }

  #verdict(
    view: RequestView,
    prepared: Prepared[],
    decisions: Decision[],
    now: number,
  ): HttpVerdict {
    let reported = 0;
    let allowed = true;
    for (let i = 0; i < decisions.length; i++) {
      const d = decisions[i]!;
      const r = decisions[reported]!;
      if (!d.allowed) {
        if (allowed || d.retryAfterMs > r.retryAfterMs) reported = i;
        allowed = false;
      } else if (allowed && d.remaining < r.remaining) {
        reported = i;
      }
    }
    return this.#answer(view, prepared, reported, decisions[reported]!, decisions, now);
  }

  #verdictOne(view: RequestView, prepared: Prepared[], d: Decision, now: number): HttpVerdict {
    return this.#answer(view, prepared, 0, d, undefined, now);
  }

  #answer(
    view: RequestView,
    prepared: Prepared[],
    reported: number,
    decision: Decision,
    decisions: Decision[] | undefined,
    now: number,
  ): HttpVerdict {
    const c = this.#config;
    const v = new Verdict(decision, decisions, c.headerStyles, prepared, reported, now);
    if (!decision.allowed) {
      v.retryAfter = retryAfterSeconds(decision);
      v.statusCode = c.statusCode;
      c.onLimited?.(view, decision);
      v.body = this.#body(view, decision, v.retryAfter);
      v.contentType =
        typeof v.body === 'string' && typeof c.message === 'function' ? TEXT : JSON_TYPE;
    }
    return v;
  }

  /** The default 429 body of the last denial, by its Retry-After seconds. */
  #lastBody: [seconds: number, body: string] | undefined;

  #body(view: RequestView, decision: Decision, seconds: number): string | object {
    const c = this.#config;
    const message = c.message;
    if (typeof message === 'function') return message(view, decision);
    const last = this.#lastBody;
    if (last !== undefined && last[0] === seconds) return last[1];
    const text = message ?? `Rate limit exceeded, retry in ${seconds} seconds`;
    const body = `{"statusCode":${c.statusCode},"error":${JSON.stringify(STATUS_CODES[c.statusCode] ?? 'Too Many Requests')},"message":${JSON.stringify(text)}}`;
    this.#lastBody = [seconds, body];
    return body;
  }

  #prepare(limits: readonly Limit[]): Prepared[] {
    // Limits of a static configuration last as long as the limiter: prepared once, here,
    // their scopes get store key spaces. Per-request limits (a named limiter's function)
    // get none; each is prepared once per name, quota and cost (`#perRequestLimit`).
    const lasting = this.#static === undefined && this.#config.limits.isStatic;
    const out: Prepared[] = [];
    for (const limit of limits) {
      if (limit.unlimited) continue;
      const p = lasting ? this.#prepareLimit(limit, true) : this.#perRequestLimit(limit);
      // A `Limit.by` subject is the request's own: only its scope is made here.
      out.push(limit.key === undefined ? p : withBy(p, this.#scope(byKey(p, limit.key), false)));
    }
    return out;
  }

  /**
   * The Prepared of a per-request limit: made on the first request with its name
   * (`Limit.prefix`), quota and cost, the only fields its keys and decisions depend on
   * besides `Limit.by`; then reused, with its route scopes.
   */
  #perRequestLimit(limit: Limit): Prepared {
    const cache = this.#perRequest;
    const same = cache.get(limit.prefix);
    if (same !== undefined) {
      for (let i = 0; i < same.length; i++) {
        const p = same[i]!;
        if (
          p.maxAttempts === limit.maxAttempts &&
          p.periodMs === limit.periodMs &&
          p.cost === limit.requestCost
        )
          return p;
      }
    }
    if (this.#perRequestCount >= MAX_CACHED_LIMITS) {
      cache.clear();
      this.#perRequestCount = 0;
    }
    const p = this.#prepareLimit(limit, false);
    const list = cache.get(limit.prefix);
    if (list === undefined) cache.set(limit.prefix, [p]);
    else list.push(p);
    this.#perRequestCount++;
    return p;
  }

  /** `limit`, ready for requests (without its `Limit.by` scope); key spaces when `lasting`. */
  #prepareLimit(limit: Limit, lasting: boolean): Prepared {
    const quota = `${limit.maxAttempts}/${limit.periodMs}`;
    let algorithm = this.#algorithms.get(quota);
    if (algorithm === undefined) {
      if (this.#algorithms.size >= MAX_CACHED_LIMITS) this.#algorithms.clear();
      algorithm = limitAlgorithm(limit, this.#config.algorithmFactory)!;
      this.#algorithms.set(quota, algorithm);
    }
    const name = limit.prefix ?? `${limit.maxAttempts}-per-${limit.periodMs}ms`;
    return {
      scope: this.#scope(`${this.#config.prefix}:${keySegment(name)}:`, lasting),
      byScope: undefined,
      routes: new Map(),
      algorithm,
      cost: limit.requestCost,
      maxAttempts: limit.maxAttempts,
      periodMs: limit.periodMs,
      name,
      windowSeconds: ceilSeconds(limit.periodMs),
    };
  }
}

/** The whole key of a `Limit.by` subject under `p`: `<prefix>:<limit name>:<by>`. */
const byKey = (p: Prepared, by: string): string => p.scope.prefix + keySegment(by);

/** `p` with `byScope` (the same shape, so the request path sees one kind of object). */
function withBy(p: Prepared, byScope: Scope): Prepared {
  return {
    scope: p.scope,
    byScope,
    routes: p.routes,
    algorithm: p.algorithm,
    cost: p.cost,
    maxAttempts: p.maxAttempts,
    periodMs: p.periodMs,
    name: p.name,
    windowSeconds: p.windowSeconds,
  };
}

/** One limit of a limiter, ready for requests; its `name` and `windowSeconds` go in headers. */
interface Prepared extends LimitPolicy {
  /** `<prefix>:<limit name>:`, the scope of the `key` option's subjects. */
  scope: Scope;
  /** The whole key when the limit has its own subject (`Limit.by`, replacing route and user/IP). */
  byScope: Scope | undefined;
  /** The scopes of `<prefix>:<limit name>:<route>:` by route (see `#routeScopes`). */
  routes: Map<string, RouteScopes>;
  algorithm: Algorithm;
  cost: number;
  /** The quota it was made for (`Limit.maxAttempts` per `Limit.periodMs`). */
  maxAttempts: number;
  periodMs: number;
}

/** `<prefix>:<limit name>:<route>:ip:` and `…:user:`. */
interface RouteScopes {
  ip: Scope;
  user: Scope;
}

/**
 * An {@link HttpVerdict}. Its headers are written straight to the response
 * ({@link Verdict.writeHeaders}); the `headers` pairs and, for one limit, the `decisions`
 * array are only built when read.
 */
const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';

class Verdict implements HttpVerdict {
  readonly allowed: boolean;
  statusCode = 200;
  body: string | object | undefined = undefined;
  contentType: string | undefined = undefined;
  readonly decision: Decision;
  /** `Retry-After` in seconds when denied. */
  retryAfter = 0;
  #decisions: Decision[] | undefined;
  #headers: [string, string][] | undefined = undefined;
  readonly #styles: readonly HeaderStyle[];
  readonly #limits: readonly Prepared[];
  readonly #reported: number;
  readonly #now: number;

  /**
   * @param decisions - every limit's decision, or `undefined` for one limit (`decision`).
   * @param reported - the index in `limits` of the limit `decision` belongs to.
   */
  constructor(
    decision: Decision,
    decisions: Decision[] | undefined,
    styles: readonly HeaderStyle[],
    limits: readonly Prepared[],
    reported: number,
    now: number,
  ) {
    this.allowed = decision.allowed;
    this.decision = decision;
    this.#decisions = decisions;
    this.#styles = styles;
    this.#limits = limits;
    this.#reported = reported;
    this.#now = now;
  }

  get decisions(): Decision[] {
    if (this.#decisions === undefined) this.#decisions = [this.decision];
    return this.#decisions;
  }

  get headers(): [string, string][] {
    if (this.#headers === undefined) {
      const out: [string, string][] = [];
      this.writeHeaders(out, pushPair);
      this.#headers = out;
    }
    return this.#headers;
  }

  writeHeaders<T>(target: T, set: HeaderSetter<T>, lowercase = false): void {
    const styles = this.#styles;
    const names = headerNames(lowercase);
    if (styles.length > 0) {
      writeRateLimitHeaders(
        styles,
        this.#limits[this.#reported]!,
        this.decision,
        this.#limits,
        this.#decisions,
        this.#now,
        target,
        set,
        names,
      );
    }
    if (!this.allowed) set(target, names.retryAfter, String(this.retryAfter));
  }
}

/**
 * Consumes every entry or none: first a peek of each (cost 0), and only if each fits
 * (`cost <= remaining`, which is exactly each algorithm's admission rule) the consumes.
 * With a synchronous store (MemoryStore) nothing runs in between, so it is atomic; with
 * an asynchronous store another request can slip in between the peek and the consume.
 */
function consumeAll(store: Store, entries: Entry[], now: number): Decision[] | Promise<Decision[]> {
  const peeks = entries.map((e) => consumeAt(store, e, 0, now));
  const finish = (ps: Decision[]): Decision[] | Promise<Decision[]> => {
    const fits = ps.every((p, i) => entries[i]!.cost <= p.remaining);
    if (fits) return settle(entries.map((e) => consumeAt(store, e, e.cost, now)));
    // Denied: ask the limits that do not fit for their real denial (which consumes nothing);
    // the others are reported as they stand, uncharged.
    return settle(
      entries.map((e, i) =>
        e.cost <= ps[i]!.remaining ? { ...ps[i]!, cost: e.cost } : consumeAt(store, e, e.cost, now),
      ),
    );
  };
  const ready = settle(peeks);
  return ready instanceof Promise ? ready.then(finish) : finish(ready);
}

function settle(values: (Decision | Promise<Decision>)[]): Decision[] | Promise<Decision[]> {
  return values.some((v) => v instanceof Promise) ? Promise.all(values) : (values as Decision[]);
}

function parseHttpOptions<Req>(
  options: HttpLimitOptions<Req>,
  defaultUser: (req: Req) => string | number | undefined | null,
): HttpConfig<Req> {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an options object');
  }
  const fn = <T>(name: string, value: T | undefined): T | undefined => {
    if (value !== undefined && typeof value !== 'function')
      throw new SluiceConfigError(name, value, 'a function');
    return value;
  };
  const registry = options.throttles ?? throttles;
  const limits = resolveLimitInput(options.limit ?? 'throttle:60,1', registry);
  let algorithmFactory: LimitAlgorithmFactory;
  const algorithm = options.algorithm ?? 'gcra';
  if (typeof algorithm === 'function') algorithmFactory = algorithm;
  else if (typeof algorithm === 'string' && Object.hasOwn(ALGORITHMS, algorithm))
    algorithmFactory = ALGORITHMS[algorithm];
  else
    throw new SluiceConfigError(
      'algorithm',
      algorithm,
      `one of ${Object.keys(ALGORITHMS).join(', ')} or a function ({ limit, periodMs }) => Algorithm`,
    );
  if (sharedStore === undefined) sharedStore = new MemoryStore();
  // HttpLimiter never calls store.reset, so a store without it is accepted.
  const { store, origin } = guardedStore(
    options.store ?? sharedStore,
    options.onStoreError ?? 'insurance',
    options.logger ?? console,
    false,
  );
  const clock = fn('clock', options.clock) ?? Date.now;
  const prefix = options.prefix ?? 'sluice';
  if (typeof prefix !== 'string') throw new SluiceConfigError('prefix', prefix, 'a string');
  const ipv6Subnet = integerAtLeast('ipv6Subnet', options.ipv6Subnet ?? 64, 1);
  if (ipv6Subnet > 128)
    throw new SluiceConfigError('ipv6Subnet', ipv6Subnet, 'an integer from 1 to 128');
  const headersOption = options.headers ?? 'legacy';
  let headerStyles: readonly HeaderStyle[];
  if (headersOption === false) headerStyles = [];
  else {
    headerStyles = typeof headersOption === 'string' ? [headersOption] : headersOption;
    if (!Array.isArray(headerStyles) || headerStyles.some((s) => !HEADER_STYLES.includes(s))) {
      throw new SluiceConfigError(
        'headers',
        headersOption,
        `false, or one or more of ${HEADER_STYLES.join(', ')}`,
      );
    }
  }
  const message = options.message;
  if (message !== undefined && typeof message !== 'string' && typeof message !== 'function') {
    throw new SluiceConfigError(
      'message',
      message,
      'a string or a function (req, decision) => body',
    );
  }
  const statusCode = integerAtLeast('statusCode', options.statusCode ?? 429, 400);
  if (statusCode > 599)
    throw new SluiceConfigError('statusCode', statusCode, 'an HTTP error status from 400 to 599');
  return {
    limits,
    algorithmFactory,
    store,
    origin,
    clock,
    prefix,
    user: fn('user', options.user) ?? defaultUser,
    key: fn('key', options.key),
    ipv6Subnet,
    headerStyles,
    skip: fn('skip', options.skip),
    onLimited: fn('onLimited', options.onLimited),
    message,
    statusCode,
  };
}
