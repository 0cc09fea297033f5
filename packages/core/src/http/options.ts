import type { AlgorithmKind } from '../algorithm.js';
import type { CircuitBreakerOptions } from '../circuit-breaker.js';
import type { Decision } from '../decision.js';
import { SluiceConfigError } from '../errors.js';
import { fixedWindow } from '../fixed-window.js';
import { checkOptionNames, optionNames } from '../known-options.js';
import { defaultLimitAlgorithm, type LimitAlgorithmFactory } from '../limit.js';
import { MemoryStore } from '../memory-store.js';
import type { OverLimitCacheOptions } from '../over-limit-cache.js';
import { slidingLog } from '../sliding-log.js';
import { slidingWindow } from '../sliding-window.js';
import type { Store } from '../store.js';
import { guardedStore, type StoreErrorPolicy, type StoreFailureLogger } from '../store-failure.js';
import {
  type LimitInput,
  type ResolvedLimits,
  resolveLimitInput,
  type ThrottleRegistry,
  throttles,
} from '../throttle-registry.js';
import { integerAtLeast } from '../validate.js';
import type { HeaderStyle, HeaderStyleName, HeadersOption } from './headers.js';
import { createHttpMetrics, type HttpMetrics, type MetricsOption } from './metrics.js';
import { type OutcomeRule, parseOutcome } from './outcome.js';
import { type BodyStyle, parseBodyStyle } from './problem.js';
import type { RequestView } from './request-view.js';
import { type LimitedInfo, type LimitMode, parseMode } from './shadow.js';

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
   * First segment of every key.
   * @default 'sluice'
   */
  prefix?: string;
  /**
   * Where `'throttle:<name>'` is looked up.
   * @default the exported `throttles` registry
   */
  throttles?: ThrottleRegistry;
  /**
   * The user id a request's key is built from, given the **framework's** request. Only a
   * non-empty string or a finite number counts; anything else keys the request by IP.
   * @default Express / Fastify `req.user?.id`, Koa `ctx.state.user?.id`
   */
  user?: (req: Req) => unknown;
  /** Replaces the whole key derivation (route and subject): `<prefix>:<limit name>:<key(req)>`. */
  key?: (req: RequestView) => string;
  /**
   * IPv6 clients are grouped by this prefix length (1..128).
   * @default 64
   */
  ipv6Subnet?: number;
  /**
   * Which headers to send (see `HeaderStyle`), several, or `false` for none.
   * @default 'legacy' (`X-RateLimit-*`)
   */
  headers?: HeadersOption;
  /** Requests for which it returns `true` are not limited and get no headers. */
  skip?: (req: RequestView) => boolean;
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
   * Where store-failure notices go.
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
   * and count in metrics as usual, but never deny (see `LimitMode`).
   * @default 'enforce'
   * @throws SluiceConfigError naming `mode` for any other value.
   */
  mode?: LimitMode;
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
  origin: Store | undefined;
  clock: () => number;
  prefix: string;
  user: ((req: Req) => unknown) | undefined;
  key: ((req: RequestView) => string) | undefined;
  ipv6Subnet: number;
  headerStyles: readonly HeaderStyle[];
  skip: ((req: RequestView) => boolean) | undefined;
  onLimited: HttpLimitOptions['onLimited'];
  message: HttpLimitOptions['message'];
  statusCode: number;
  /** The outcome options; `undefined`: no request is given back for its outcome. */
  outcome: OutcomeRule<Req, unknown> | undefined;
  /** `mode: 'shadow'`. */
  shadow: boolean;
  /** What `metrics` records, or `undefined`: nothing. */
  metrics: HttpMetrics | undefined;
  /** `body: 'problem'`. */
  problem: boolean;
}

const ALGORITHMS: Record<AlgorithmKind, LimitAlgorithmFactory> = {
  gcra: defaultLimitAlgorithm,
  'fixed-window': ({ limit, periodMs }) => fixedWindow({ limit, window: periodMs }),
  'sliding-window': ({ limit, periodMs }) => slidingWindow({ limit, window: periodMs }),
  'sliding-log': ({ limit, periodMs }) => slidingLog({ limit, window: periodMs }),
};

const HEADER_STYLES: readonly HeaderStyle[] = ['legacy', 'draft-6', 'draft-7', 'draft-8'];

/** The names of {@link HttpLimitOptions}: every option `parseHttpOptions` knows. */
export const HTTP_OPTION_NAMES: readonly string[] = optionNames<HttpLimitOptions>({
  limit: true,
  algorithm: true,
  store: true,
  clock: true,
  prefix: true,
  throttles: true,
  user: true,
  key: true,
  ipv6Subnet: true,
  headers: true,
  skip: true,
  onLimited: true,
  message: true,
  statusCode: true,
  onStoreError: true,
  logger: true,
  breaker: true,
  overLimitCache: true,
  skipSuccessfulRequests: true,
  skipFailedRequests: true,
  requestWasSuccessful: true,
  mode: true,
  metrics: true,
  body: true,
});

/** Core option objects made by {@link splitHttpOptions}: their names are already checked. */
const namesChecked = new WeakSet<object>();

/**
 * For adapters: checks an adapter's options object (a non-null object whose names are all
 * {@link HTTP_OPTION_NAMES} or the adapter's own `extra` names) and splits it into the
 * adapter's own options and the core's, which `parseHttpOptions` (through `HttpPipeline`)
 * then takes without checking the names again. An unknown name, including a near miss of
 * an adapter's own option (`handlr`), is a {@link SluiceConfigError} that says what to write.
 *
 * @param options - the options the user gave the adapter.
 * @param extra - the adapter's own option names, e.g. `['handler']`.
 * @param where - the call, for messages, e.g. `'rateLimit()'`.
 * @returns `[own, core]`: the `extra` options, and the rest (the `HttpLimitOptions`).
 * @throws {@link SluiceConfigError} naming `options` (not an object) or the unknown name.
 *
 * @example
 * ```ts
 * const [{ handler }, core] = splitHttpOptions(options, ['handler'] as const, 'rateLimit()');
 * const pipeline = new HttpPipeline(core, binding, 'global');
 * ```
 */
export function splitHttpOptions<O extends object, K extends keyof O & string>(
  options: O,
  extra: readonly K[],
  where: string,
): [Pick<O, K>, Omit<O, K>] {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an options object');
  }
  checkOptionNames(options, [...HTTP_OPTION_NAMES, ...extra], where);
  const own = {} as Pick<O, K>;
  const core = { ...options } as Record<string, unknown>;
  for (const name of extra) {
    if (Object.hasOwn(core, name)) (own as Record<string, unknown>)[name] = core[name];
    delete core[name];
  }
  namesChecked.add(core);
  return [own, core as Omit<O, K>];
}

/** Drafts 9, 10 and 11 kept draft-8's header syntax: the names are accepted as draft-8. */
const DRAFT_8_SYNTAX: Record<string, HeaderStyle> = {
  'draft-9': 'draft-8',
  'draft-10': 'draft-8',
  'draft-11': 'draft-8',
};

/**
 * Stands in for the application's default store while `onStoreError` and `logger` are
 * validated (they must be valid even when no `store` is given); never decides anything.
 */
const VALIDATION_STORE = new MemoryStore({ maxKeys: 1 });

/**
 * Parses and validates {@link HttpLimitOptions}.
 * @throws {@link SluiceConfigError} naming the first invalid option, or an unknown option
 *   name (see {@link HTTP_OPTION_NAMES}; adapters check theirs with {@link splitHttpOptions}).
 */
export function parseHttpOptions<Req>(options: HttpLimitOptions<Req, never>): HttpConfig<Req> {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an options object');
  }
  if (!namesChecked.has(options)) checkOptionNames(options, HTTP_OPTION_NAMES, 'new HttpLimiter()');
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
  // HttpLimiter never calls store.reset, so a store without it is accepted.
  const guarded = guardedStore(
    options.store ?? VALIDATION_STORE,
    options.onStoreError ?? 'insurance',
    options.logger ?? console,
    false,
    options.breaker,
    options.overLimitCache,
  );
  const clock = fn('clock', options.clock) ?? Date.now;
  const prefix = options.prefix ?? 'sluice';
  if (typeof prefix !== 'string') throw new SluiceConfigError('prefix', prefix, 'a string');
  const ipv6Subnet = integerAtLeast('ipv6Subnet', options.ipv6Subnet ?? 64, 1);
  if (ipv6Subnet > 128)
    throw new SluiceConfigError('ipv6Subnet', ipv6Subnet, 'an integer from 1 to 128');
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
    store: options.store === undefined ? undefined : guarded.store,
    origin: options.store === undefined ? undefined : guarded.origin,
    clock,
    prefix,
    user: fn('user', options.user),
    key: fn('key', options.key),
    ipv6Subnet,
    headerStyles: parseHeaderStyles(options.headers ?? 'legacy'),
    skip: fn('skip', options.skip),
    onLimited: fn('onLimited', options.onLimited),
    message,
    statusCode,
    outcome: parseOutcome<Req, unknown>(options),
    shadow: parseMode(options.mode),
    metrics: createHttpMetrics(options.metrics, options.logger ?? console),
    problem: parseBodyStyle(options.body),
  };
}

function parseHeaderStyles(option: HeadersOption): readonly HeaderStyle[] {
  if (option === false) return [];
  const named: readonly HeaderStyleName[] = typeof option === 'string' ? [option] : option;
  const styles = Array.isArray(named)
    ? named.map((s) => (typeof s === 'string' ? (DRAFT_8_SYNTAX[s] ?? s) : s))
    : undefined;
  if (styles === undefined || styles.some((s) => !HEADER_STYLES.includes(s))) {
    throw new SluiceConfigError(
      'headers',
      option,
      `false, or one or more of ${[...HEADER_STYLES, ...Object.keys(DRAFT_8_SYNTAX)].join(', ')}`,
    );
  }
  return [...new Set(styles)];
}
