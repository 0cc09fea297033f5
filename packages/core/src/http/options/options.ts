import type { AlgorithmKind } from '../../algorithms/algorithm.js';
import type { Decision } from '../../algorithms/decision.js';
import type { Duration } from '../../common/duration.js';
import type { LimitAlgorithmFactory } from '../../limits/limit.js';
import type { RequestView } from '../../limits/request-view.js';
import type {
  LimitInput,
  ResolvedLimits,
  ThrottleRegistry,
} from '../../limits/throttle-registry.js';
import type { CircuitBreakerOptions } from '../../store-failure/circuit-breaker.js';
import type { OverLimitCacheOptions } from '../../store-failure/over-limit-cache.js';
import type { StoreErrorPolicy, StoreFailureLogger } from '../../store-failure/store-failure.js';
import type { Store } from '../../stores/store.js';
import type { HttpMetrics, MetricsOption } from '../metrics/metrics.js';
import type { ValidateConfig, ValidateOptions } from '../request/proxy-warnings.js';
import type { BodyStyle } from '../verdict/denial.js';
import type { HeaderStyle, HeadersOption } from '../verdict/headers.js';
import type { LimitedInfo, LimitMode } from '../verdict/shadow.js';
import type { OutcomeRule } from './outcome.js';
import type { QueueConfig } from './queue-options.js';

/**
 * The options every adapter's `rateLimit(options)` and `throttle(limit, options)` accept.
 * Parsed and validated once, when the middleware is created: an invalid value or an
 * unknown option name is a `SluiceConfigError` then, never on a request.
 *
 * @typeParam Req - the framework's request type (what `user` receives).
 * @typeParam Res - the framework's response type (what `requestWasSuccessful` receives).
 *
 * @example
 * rateLimit({ limit: 'throttle:60,1', headers: 'draft-8', onStoreError: 'deny' });
 */
export interface HttpLimitOptions<Req = unknown, Res = unknown> {
  /**
   * The limit: a throttle string (`'throttle:60,1'` = 60 per minute, `'throttle:api'` = a
   * named limiter, `'10/s'`), a `Limit`, or an array (the request must pass every one; a
   * request denied by any consumes from none).
   * @default 'throttle:60,1' (Laravel's default)
   */
  limit?: LimitInput;
  /**
   * The algorithm each limit's quota runs on: an algorithm kind, or a factory
   * `({ limit, periodMs }) => Algorithm`.
   * @default 'gcra' (burst = the quota)
   */
  algorithm?: AlgorithmKind | LimitAlgorithmFactory;
  /**
   * Where state lives.
   * @default the application's own `MemoryStore` (one per Express app, Fastify root
   *   instance or Koa app, shared by that app's limiters; two apps never share one)
   */
  store?: Store;
  /**
   * The time in **ms since the Unix epoch**.
   * @default Date.now
   */
  clock?: () => number;
  /**
   * First segment of every key (`sl:5-per-60000ms:POST /login:ip:203.0.113.7`): short, since
   * every byte of a key is kept per key in Redis. Under an algorithm other than GCRA it is
   * marked with it (`sl@fw:` fixed window, `@sw`, `@log`, `@cal`), so a limit moved to
   * another algorithm starts on fresh keys.
   * @default 'sl'
   */
  prefix?: string;
  /**
   * Where `'throttle:<name>'` is looked up.
   * @default the exported `throttles` registry
   */
  throttles?: ThrottleRegistry;
  /**
   * The user id a request's key is built from, given the **framework's** request; may
   * return a promise (a session looked up), and a rejection is a 500 through the framework's
   * error handling. A
   * non-empty string or a finite number is the id; `undefined`, `null`, `''` or a number
   * that is not finite means no user (the request is keyed by IP). Any other kind of value
   * (the user object instead of its id, an array, a boolean…) is a mistake, not "no user":
   * the request gets a `SluiceConfigError` naming `user`, answered 500 through the
   * framework's error handling (Express `next(err)`, Fastify's error handler, Koa's).
   * @default Express / Fastify `req.user?.id`, Koa `ctx.state.user?.id` (there, a value of
   *   another kind is no user)
   * @example user: (req) => req.session?.userId
   */
  user?: (req: Req) => unknown;
  /**
   * Replaces the whole key derivation (route and subject): `<prefix>:<limit name>:<key(req)>`.
   * May return a promise. A value that is not a string or a finite number (an object, a
   * promise of a promise, `undefined`) fails the request with a `TypeError` naming `key`
   * (500), never a key shared by every client.
   */
  key?: (req: RequestView) => string | number | PromiseLike<string | number>;
  /**
   * IPv6 clients are grouped by this prefix length (an integer 1..128), or by the answer of
   * a synchronous function of the request (as `key` and `skip` get it), asked once per
   * request whose key is its client IP (no `key` answer, no user), and for an IPv6 client
   * while operator `{ ip }` entries are in force. An answer that is not an integer 1..128
   * fails the request with a `SluiceConfigError` naming `ipv6Subnet` (a 500 through the
   * framework's error handling, as a bad `key` answer), never the default. An operator
   * `{ ip }` entry applies to the request whose group holds its address (at /56 the
   * address's /56); a `{ cidr }` entry by containment of the address (docs/guide/operating.md).
   * @default 64
   * @throws SluiceConfigError naming `ipv6Subnet` for a value that is neither such a number
   *   nor a function.
   * @example ipv6Subnet: (req) => (req.ip.startsWith('2001:db8:') ? 56 : 64)
   */
  ipv6Subnet?: number | ((req: RequestView) => number);
  /**
   * Which headers to send (see `HeaderStyle`), several, or `false` for none.
   * @default 'legacy' (`X-RateLimit-*`)
   */
  headers?: HeadersOption;
  /**
   * Requests for which it returns `true` (or a promise of `true`) are not limited and get no
   * headers. A rejection is a 500 through the framework's error handling, never a skip.
   */
  skip?: (req: RequestView) => boolean | PromiseLike<boolean>;
  /**
   * Called once for each denied request, before the 429 is sent; under `mode: 'shadow'`,
   * for each request the limit denied and shadow mode let through, with `info.shadow`
   * `true` (see `LimitedInfo`).
   */
  onLimited?: (req: RequestView, decision: Decision, info: LimitedInfo) => void;
  /**
   * The 429 body's `message`, or a function returning the whole body (a string is sent as
   * is, an object as JSON).
   * @default 'Rate limit exceeded, retry in N seconds'
   */
  message?: string | ((req: RequestView, decision: Decision) => string | object);
  /**
   * Status of a denied request (400..599).
   * @default 429
   */
  statusCode?: number;
  /**
   * What to do while the store fails (see `StoreErrorPolicy`).
   * @default 'insurance'
   */
  onStoreError?: StoreErrorPolicy;
  /**
   * Where store-failure notices go, and the errors of a `Limit.costAfter` units function
   * (a throw, a rejection, a value that is not a finite number >= 0).
   * @default console
   */
  logger?: StoreFailureLogger;
  /**
   * The circuit breaker in front of a `store` that can fail (not a `MemoryStore`): after a
   * failure or timeout, `onStoreError` decides at once for `cooldownMs`, then one probe at a
   * time tries the store until one answers.
   * @default { cooldownMs: 1000 }
   */
  breaker?: CircuitBreakerOptions;
  /**
   * Keys a `store` that can fail (not a `MemoryStore`) denied are remembered in-process
   * until their retry time and denied without a store call, also during an outage;
   * `false` asks the store every time.
   * @default { maxKeys: 10_000 }
   */
  overLimitCache?: OverLimitCacheOptions | false;
  /**
   * Give back the charge of every request that succeeded (`requestWasSuccessful`), once its
   * response has finished: only failures count, e.g. failed logins (express-rate-limit's
   * option). The request is charged when it arrives (so a burst cannot slip through) and
   * given back by `limiter.refund`, exactly, on every algorithm and store.
   * @default false
   */
  skipSuccessfulRequests?: boolean;
  /**
   * Give back the charge of every request that failed: `requestWasSuccessful` false, or its
   * connection closed before the response ended (express-rate-limit's option).
   * @default false
   */
  skipFailedRequests?: boolean;
  /**
   * Whether a finished request succeeded, given the **framework's** request and response
   * (Express `req, res`; Fastify `request, reply`; Koa `ctx, ctx`); may be async. Asked only
   * when a skip option is on, and never for a request whose connection closed first (a
   * failure). A callback that throws counts as a failure.
   * @default the response status is below 400
   */
  requestWasSuccessful?: (req: Req, res: Res) => boolean | Promise<boolean>;
  /**
   * `'shadow'`: decide, charge, send the headers, call `onLimited` (with `{ shadow: true }`)
   * and count in metrics as usual, but never deny (see `LimitMode`). `'queue'`: a request
   * over the limit waits for its booked slot (at most `maxWait`, with at most `maxQueued`
   * waiting), then is served; otherwise it gets the 429 answer at once, with `Retry-After`
   * the wait rounded up. A client that disconnects while waiting gives its slot back. GCRA
   * and the buckets only. A route with several limits books all their slots in one
   * all-or-nothing store call and waits for the latest; `costAfter` and
   * `skipSuccessfulRequests` / `skipFailedRequests` settle after the response as usual.
   * @default 'enforce'
   * @throws SluiceConfigError naming `mode` for any other value, or `'queue'` with: a window
   *   (`algorithm` option or a `Limit` on a window or the calendar: no future slot), a
   *   `Limit.concurrent` or `Limit.adaptive` (a lease frees when a request ends, at no time
   *   a store can book: put it on a limiter of its own), or a `store` that cannot book
   *   (no `reserve`; several limits: no `reserveAll`).
   * @example
   * rateLimit({ limit: 'throttle:10,1', mode: 'queue', maxWait: '5s', maxQueued: 1000 })
   */
  mode?: LimitMode;
  /**
   * With `mode: 'queue'`: the longest a request may wait for its slot, ms or a duration
   * string (`'500ms'`, `'5s'`); 0 queues nothing. Past it, the 429 answer at once.
   * @default 5 s (`'5s'`)
   * @throws SluiceConfigError naming `maxWait` when unparsable or negative (with
   *   `mode: 'queue'`; another mode does not use it).
   */
  maxWait?: Duration;
  /**
   * With `mode: 'queue'`: the most requests of this limiter waiting at once in this
   * process (an integer >= 0); a request that finds it full gets the 429 answer at once
   * unless it conforms now. A request counts from before its store call (requests arriving
   * together on an asynchronous store are bounded too) until its slot comes, or until the
   * store's reply when that is a denial or no wait.
   * @default 1000
   * @throws SluiceConfigError naming `maxQueued` when not an integer >= 0 (with
   *   `mode: 'queue'`; another mode does not use it).
   */
  maxQueued?: number;
  /**
   * Record OpenTelemetry metrics (`sluice.requests`, `sluice.store.duration`,
   * `sluice.leases`) through the optional peer dependency `@opentelemetry/api` (see
   * `MetricsOption`).
   * @default false
   * @throws SluiceConfigError naming `metrics` or `metrics.meterProvider`.
   */
  metrics?: MetricsOption;
  /**
   * The 429 body: `'json'`, or `'problem'` for `application/problem+json` with the
   * ratelimit-headers draft-11 problem type `quota-exceeded` (see `QuotaExceededProblem`).
   * @default 'json'
   * @throws SluiceConfigError naming `body` for any other value.
   */
  body?: BodyStyle;
  /**
   * Checks of the proxy setup, each warning once per application through `logger` (as
   * express-rate-limit's `validate`): `trustProxy` warns when the framework trusts every
   * proxy hop (a client then picks its IP with `X-Forwarded-For` and rotating it is never
   * limited); `xForwardedFor` warns when a request carries `X-Forwarded-For` and the
   * framework trusts no proxy (every client behind the proxy shares one bucket). `false`
   * turns both off; an object turns each on or off (see `ValidateOptions`). The checks run
   * on a limiter's first 1000 requests only.
   * @default true
   * @throws SluiceConfigError naming `validate` (or `validate.<name>`) for another value.
   * @example validate: { xForwardedFor: false } // a proxy that adds the header, trusted elsewhere
   */
  validate?: boolean | ValidateOptions;
  /**
   * The longest an async resolver (`limit` or a named limiter, `key`, `user`, `skip`) may
   * take, in **ms** or as a duration string (`'2s'`); `false`: no bound. A resolver still
   * pending then fails its request with a `TimeoutError` through the framework's error
   * handling (a 500, as a resolver that rejects), and `logger.warn` gets one line when a
   * resolver starts timing out (again only after it has settled in time once). Store calls
   * have their own bound (the store's `timeoutMs`).
   * @default 5000 (5 s)
   * @throws SluiceConfigError naming `resolverTimeout` for a value below 1 ms or of another kind.
   * @example resolverTimeout: '2s'
   */
  resolverTimeout?: Duration | false;
}

/** {@link HttpLimitOptions}, parsed: every field present and valid. */
export interface HttpConfig<Req> {
  limits: ResolvedLimits;
  algorithmFactory: LimitAlgorithmFactory;
  /**
   * The user's store, behind a FailSafeStore unless a MemoryStore; `undefined`: the
   * application's default store, chosen per request.
   */
  store: Store | undefined;
  /** The user's store itself: what "the same key" means across limiters (see charges.ts). */
  userStore: Store | undefined;
  clock: () => number;
  prefix: string;
  user: ((req: Req) => unknown) | undefined;
  key: HttpLimitOptions['key'];
  ipv6Subnet: number | ((req: RequestView) => number);
  headerStyles: readonly HeaderStyle[];
  skip: HttpLimitOptions['skip'];
  onLimited: HttpLimitOptions['onLimited'];
  message: HttpLimitOptions['message'];
  statusCode: number;
  /** The outcome options; `undefined`: no request is given back for its outcome. */
  outcome: OutcomeRule<Req, unknown> | undefined;
  /** `mode: 'shadow'`. */
  shadow: boolean;
  /** `mode: 'queue'` with its `maxWait` and `maxQueued`; `undefined`: another mode. */
  queue: QueueConfig | undefined;
  /** What `metrics` records, or `undefined`: nothing. */
  metrics: HttpMetrics | undefined;
  /** `body: 'problem'`. */
  problem: boolean;
  /** The `validate` checks and where they warn. */
  validate: ValidateConfig;
  /** Where store failures and `Limit.costAfter` units that cannot be settled are logged. */
  logger: StoreFailureLogger;
  /** `resolverTimeout` in **ms**; `Infinity`: no bound. */
  resolverTimeoutMs: number;
}
