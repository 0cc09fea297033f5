import type { AlgorithmKind } from '../../algorithms/algorithm.js';
import { fixedWindow } from '../../algorithms/fixed-window.js';
import { slidingLog } from '../../algorithms/sliding-log.js';
import { slidingWindow } from '../../algorithms/sliding-window.js';
import { SluiceConfigError } from '../../common/errors.js';
import { checkOptionNames, optionNames } from '../../common/known-options.js';
import { integerAtLeast } from '../../common/validate.js';
import { defaultLimitAlgorithm, type LimitAlgorithmFactory } from '../../limits/limit.js';
import { checkStaticLimits } from '../../limits/limit-checks.js';
import { resolveLimitInput, throttles } from '../../limits/throttle-registry.js';
import { guardedStore } from '../../store-failure/guarded-store.js';
import { MemoryStore } from '../../stores/memory-store.js';
import { parseResolverTimeout } from '../limiter/resolver-timeout.js';
import { createHttpMetrics } from '../metrics/metrics.js';
import { checkedSubnet } from '../request/keys.js';
import { parseValidate } from '../request/proxy-warnings.js';
import { parseBodyStyle } from '../verdict/denial.js';
import type { HeaderStyle, HeaderStyleName, HeadersOption } from '../verdict/headers.js';
import { parseMode } from '../verdict/shadow.js';
import type { HttpConfig, HttpLimitOptions } from './options.js';
import { parseOutcome } from './outcome.js';
import { parseQueue } from './queue-options.js';

/**
 * Parsing of {@link HttpLimitOptions} into the fully-required {@link HttpConfig}: option
 * names checked, values validated (a `SluiceConfigError` naming the option), defaults applied.
 */

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
  maxWait: true,
  maxQueued: true,
  metrics: true,
  body: true,
  validate: true,
  resolverTimeout: true,
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
  const misused = misusedFactory(options, where);
  if (misused !== undefined) throw misused;
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

/**
 * The error for a middleware factory used as the middleware itself (`app.use(rateLimit)`
 * instead of `app.use(rateLimit(options))`): the framework then calls it with its request
 * (Express `req`, Koa `ctx`) where the options belong; or a function was passed as the
 * options. `undefined` when `value` is neither.
 *
 * @param value - what the factory received where its options (or its limit) belong.
 * @param where - the factory call, e.g. `'rateLimit()'` or `'throttle()'`.
 * @returns a {@link SluiceConfigError} naming `options` whose message says to call the
 *   factory, or `undefined`.
 *
 * @example
 * ```ts
 * export function rateLimit(options = {}) {
 *   const misused = misusedFactory(options, 'rateLimit()');
 *   if (misused !== undefined) throw misused;
 * }
 * ```
 */
export function misusedFactory(value: unknown, where: string): SluiceConfigError | undefined {
  const factory = where.replace(/\(\)$/, '');
  const call =
    factory === 'throttle'
      ? "call throttle(limit, options) and mount what it returns, e.g. app.get('/x', throttle('throttle:10,1'), handler)"
      : "call rateLimit(options) and mount what it returns, e.g. app.use(rateLimit({ limit: 'throttle:60,1' }))";
  if (typeof value === 'function') {
    return new SluiceConfigError('options', value, 'an options object', {
      message: `sluice: ${where} was given a function where its options belong: ${call}`,
    });
  }
  if (value === null || typeof value !== 'object') return undefined;
  // An Express / Node request (`headers` and `method`), a Koa context (`req` and `res`).
  const v = value as Record<string, unknown>;
  if (('headers' in v && 'method' in v) || ('req' in v && 'res' in v)) {
    return new SluiceConfigError('options', value, 'an options object', {
      message:
        `sluice: ${factory} was mounted itself, so it received the framework's request ` +
        `where its options belong: ${call}, not app.use(${factory})`,
    });
  }
  return undefined;
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
  // Found here, not on the first request: a limit its algorithm can never admit or settle.
  checkStaticLimits(limits.entries, algorithmFactory);
  // HttpLimiter never calls store.reset, so a store without it is accepted.
  const guarded = guardedStore({
    store: options.store ?? VALIDATION_STORE,
    onStoreError: options.onStoreError ?? 'insurance',
    logger: options.logger ?? console,
    requireReset: false,
    breaker: options.breaker,
    overLimit: options.overLimitCache,
  });
  const clock = fn('clock', options.clock) ?? Date.now;
  const prefix = options.prefix ?? 'sl';
  if (typeof prefix !== 'string') throw new SluiceConfigError('prefix', prefix, 'a string');
  const s = options.ipv6Subnet ?? 64;
  const ipv6Subnet = typeof s === 'function' ? s : checkedSubnet(s);
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
    userStore: options.store === undefined ? undefined : guarded.userStore,
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
    queue: parseQueue(options),
    metrics: createHttpMetrics(options.metrics, options.logger ?? console),
    problem: parseBodyStyle(options.body),
    validate: parseValidate(options.validate, options.logger ?? console),
    logger: options.logger ?? console,
    resolverTimeoutMs: parseResolverTimeout(options.resolverTimeout),
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
