import { STATUS_CODES } from 'node:http';
import type { Algorithm } from './algorithm.js';
import type { Decision } from './decision.js';
import { SluiceConfigError } from './errors.js';
import { fixedWindow } from './fixed-window.js';
import {
  type HeaderStyle,
  type HeadersOption,
  type PolicyDecision,
  rateLimitHeaders,
  retryAfterSeconds,
} from './headers.js';
import {
  defaultLimitAlgorithm,
  type Limit,
  type LimitAlgorithmFactory,
  limitAlgorithm,
} from './limit.js';
import { MemoryStore } from './memory-store.js';
import { ipSubject, keySegment } from './request-key.js';
import type { RequestView } from './request-view.js';
import { slidingLog } from './sliding-log.js';
import { slidingWindow } from './sliding-window.js';
import type { Store } from './store.js';
import { FailSafeStore, type StoreErrorPolicy, type StoreFailureLogger } from './store-failure.js';
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
  /** The most restrictive decision: what `req.rateLimit` exposes. */
  decision: Decision;
  /** Every limit's decision, in order. */
  decisions: Decision[];
}

interface Entry {
  key: string;
  algorithm: Algorithm;
  cost: number;
  policy: PolicyDecision;
}

interface HttpConfig<Req> {
  limits: ResolvedLimits;
  algorithmFactory: LimitAlgorithmFactory;
  store: Store;
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

/** Keys already charged for a request: a request is charged once per key (DESIGN §6). */
const charged = new WeakMap<object, Map<string, Decision>>();

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
  readonly #algorithms = new Map<string, Algorithm>();
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
    if (prepared.length === 0) return undefined;
    const subject = this.#subject(view);
    const entries: Entry[] = new Array(prepared.length);
    for (let i = 0; i < prepared.length; i++) {
      const p = prepared[i]!;
      entries[i] = {
        key: p.key + subject(p),
        algorithm: p.algorithm,
        cost: p.cost,
        policy: p.policy,
      };
    }
    const raw = typeof view.raw === 'object' && view.raw !== null ? view.raw : undefined;
    let done = raw === undefined ? undefined : charged.get(raw);
    if (done === undefined && raw !== undefined) {
      done = new Map();
      charged.set(raw, done);
    }
    const now = c.clock();
    const decided = this.#consume(entries, now, done);
    if (decided instanceof Promise)
      return decided.then((ds) => this.#verdict(view, entries, ds, now));
    return this.#verdict(view, entries, decided, now);
  }

  #subject(view: RequestView): (p: Prepared) => string {
    const c = this.#config;
    if (c.key !== undefined) {
      const custom = keySegment(String(c.key(view)));
      return () => custom;
    }
    const route = keySegment(view.route);
    const who =
      view.userId !== undefined
        ? `user:${keySegment(String(view.userId))}`
        : `ip:${ipSubject(view.ip, c.ipv6Subnet)}`;
    return (p) => (p.by !== undefined ? p.by : `${route}:${who}`);
  }

  #consume(
    entries: Entry[],
    now: number,
    done: Map<string, Decision> | undefined,
  ): Decision[] | Promise<Decision[]> {
    const store = this.#config.store;
    // Keys this request was already charged for (e.g. a global and a per-route limiter
    // with the same limit) are reported, not charged again.
    const todo: Entry[] = [];
    const decisions: (Decision | undefined)[] = new Array(entries.length);
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      const previous = done?.get(e.key);
      if (previous !== undefined) decisions[i] = previous;
      else todo.push(e);
    }
    const record = (results: Decision[]): Decision[] => {
      let j = 0;
      for (let i = 0; i < entries.length; i++) {
        if (decisions[i] === undefined) {
          const d = results[j++]!;
          decisions[i] = d;
          if (d.allowed && done !== undefined) done.set(entries[i]!.key, d);
        }
      }
      return decisions as Decision[];
    };
    if (todo.length === 0) return decisions as Decision[];
    if (todo.length === 1) {
      const e = todo[0]!;
      const one = store.consume(e.key, e.algorithm, e.cost, now);
      return one instanceof Promise ? one.then((d) => record([d])) : record([one]);
    }
    const all = consumeAll(store, todo, now);
    return all instanceof Promise ? all.then(record) : record(all);
  }

  #verdict(view: RequestView, entries: Entry[], decisions: Decision[], now: number): HttpVerdict {
    const c = this.#config;
    let reported = 0;
    let allowed = true;
    for (let i = 0; i < decisions.length; i++) {
      const d = decisions[i]!;
      entries[i]!.policy.decision = d;
      const r = decisions[reported]!;
      if (!d.allowed) {
        if (allowed || d.retryAfterMs > r.retryAfterMs) reported = i;
        allowed = false;
      } else if (allowed && d.remaining < r.remaining) {
        reported = i;
      }
    }
    const decision = decisions[reported]!;
    const headers: [string, string][] = [];
    if (c.headerStyles.length > 0) {
      const policies = entries.map((e) => e.policy);
      rateLimitHeaders(c.headerStyles, policies[reported]!, policies, now, headers);
    }
    if (allowed) return { allowed, statusCode: 200, headers, body: undefined, decision, decisions };
    const seconds = retryAfterSeconds(decision);
    headers.push(['Retry-After', String(seconds)]);
    c.onLimited?.(view, decision);
    return {
      allowed,
      statusCode: c.statusCode,
      headers,
      body: this.#body(view, decision, seconds),
      decision,
      decisions,
    };
  }

  #body(view: RequestView, decision: Decision, seconds: number): string | object {
    const c = this.#config;
    const message = c.message;
    if (typeof message === 'function') return message(view, decision);
    const text = message ?? `Rate limit exceeded, retry in ${seconds} seconds`;
    return `{"statusCode":${c.statusCode},"error":${JSON.stringify(STATUS_CODES[c.statusCode] ?? 'Too Many Requests')},"message":${JSON.stringify(text)}}`;
  }

  #prepare(limits: readonly Limit[]): Prepared[] {
    const c = this.#config;
    const out: Prepared[] = [];
    for (const limit of limits) {
      if (limit.unlimited) continue;
      const quota = `${limit.maxAttempts}/${limit.periodMs}`;
      let algorithm = this.#algorithms.get(quota);
      if (algorithm === undefined) {
        algorithm = limitAlgorithm(limit, c.algorithmFactory)!;
        this.#algorithms.set(quota, algorithm);
      }
      const name = limit.prefix ?? `${limit.maxAttempts}-per-${limit.periodMs}ms`;
      const by = limit.key === undefined ? undefined : keySegment(String(limit.key));
      out.push({
        key: `${c.prefix}:${keySegment(name)}:`,
        by,
        algorithm,
        cost: limit.requestCost,
        policy: {
          name,
          windowSeconds: Math.ceil(limit.periodMs / 1000),
          decision: undefined as never,
        },
      });
    }
    return out;
  }
}

interface Prepared {
  /** `<prefix>:<limit name>:` */
  key: string;
  /** The limit's own subject (`Limit.by`), replacing route and user/IP. */
  by: string | undefined;
  algorithm: Algorithm;
  cost: number;
  policy: PolicyDecision;
}

/**
 * Consumes every entry or none: first a peek of each (cost 0), and only if each fits
 * (`cost <= remaining`, which is exactly each algorithm's admission rule) the consumes.
 * With a synchronous store (MemoryStore) nothing runs in between, so it is atomic; with
 * an asynchronous store another request can slip in between the peek and the consume.
 */
function consumeAll(store: Store, entries: Entry[], now: number): Decision[] | Promise<Decision[]> {
  const peeks = entries.map((e) => store.consume(e.key, e.algorithm, 0, now));
  const finish = (ps: Decision[]): Decision[] | Promise<Decision[]> => {
    const fits = ps.every((p, i) => entries[i]!.cost <= p.remaining);
    if (fits) return settle(entries.map((e) => store.consume(e.key, e.algorithm, e.cost, now)));
    // Denied: ask the limits that do not fit for their real denial (which consumes nothing);
    // the others are reported as they stand, uncharged.
    return settle(
      entries.map((e, i) =>
        e.cost <= ps[i]!.remaining
          ? { ...ps[i]!, cost: e.cost }
          : store.consume(e.key, e.algorithm, e.cost, now),
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
  const store = options.store ?? sharedStore;
  if (store === null || typeof store !== 'object' || typeof store.consume !== 'function') {
    throw new SluiceConfigError('store', store, 'a Store (MemoryStore, RedisStore)');
  }
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
  const onStoreError = options.onStoreError ?? 'insurance';
  if (onStoreError !== 'insurance' && onStoreError !== 'allow' && onStoreError !== 'deny') {
    throw new SluiceConfigError('onStoreError', onStoreError, "'insurance', 'allow' or 'deny'");
  }
  const logger = options.logger ?? console;
  return {
    limits,
    algorithmFactory,
    store: store instanceof MemoryStore ? store : new FailSafeStore(store, onStoreError, logger),
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
