import { describe as describeValue, SluiceConfigError } from '../common/errors.js';
import { brandClass, processGlobal } from '../common/process-global.js';
import { Limit } from './limit.js';
import type { RequestView } from './request-view.js';
import { parseThrottle, THROTTLE_NAME } from './throttle-string.js';

/**
 * A named limiter's body: given the request, the limit(s) that apply to it (Laravel
 * `RateLimiter::for($name, fn (Request $request) => Limit::perMinute(60)->by(...))`), or a
 * promise of them (a plan read from a database: put a cache with a TTL in front of it,
 * e.g. lru-cache's `fetch`). Called on every request the limiter covers. An empty array
 * means "no limit for this request" (as does {@link Limit.none}). A synchronous resolver
 * keeps a synchronous store's decision synchronous; one that throws or rejects fails the
 * request through the framework's error handling (500 by default), never an unlimited one.
 *
 * @example
 * throttles.define('api', async (req) => Limit.perMinute((await plans.fetch(req.userId)).rpm));
 */
export type LimitResolver = (
  req: RequestView,
) => Limit | readonly Limit[] | PromiseLike<Limit | readonly Limit[]>;

/** Whether `value` is a promise (or any thenable): what an async resolver returns. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Named limiters, as in Laravel's `RateLimiter::for` / `RateLimiter::limiter`
 * (`Illuminate\Cache\RateLimiter`), referenced from a route as `'throttle:<name>'`.
 *
 * ```ts
 * const throttles = new ThrottleRegistry();
 * throttles.define('api', (req) => Limit.perMinute(60).by(req.userId ?? req.ip));
 * throttles.define('login', (req) => [Limit.perMinute(5).by(req.ip), Limit.perDay(100).by(req.ip)]);
 * ```
 *
 * Define limiters before creating the middleware that names them: the middleware checks the
 * name when it is created ({@link ThrottleRegistry.assertDefined}) and keeps the resolver it
 * found then ({@link resolveLimitInput}).
 */
export class ThrottleRegistry {
  readonly #resolvers = new Map<string, LimitResolver>();

  /**
   * Defines (or, as in Laravel, redefines) the named limiter `name`.
   *
   * @param name - matches {@link THROTTLE_NAME} (a letter, then letters, digits, `_`, `.`,
   *   `-`), so that `'throttle:<name>'` can name it.
   * @param resolver - `(req: RequestView) => Limit | Limit[]`, or a promise of them.
   * @returns this registry, for chaining.
   * @throws {@link SluiceConfigError} naming `name` or `resolver` when invalid.
   */
  define(name: string, resolver: LimitResolver): this {
    if (typeof name !== 'string' || !THROTTLE_NAME.test(name)) {
      throw new SluiceConfigError(
        'name',
        name,
        'a limiter name: an ASCII letter, then up to 63 ASCII letters, digits, "_", "." or "-"',
      );
    }
    if (typeof resolver !== 'function') {
      throw new SluiceConfigError(
        'resolver',
        resolver,
        'a function (req) => Limit | Limit[] (or a promise of them)',
      );
    }
    this.#resolvers.set(name, resolver);
    return this;
  }

  /** Whether `name` is defined. */
  has(name: string): boolean {
    return this.#resolvers.has(name);
  }

  /** The defined names, in definition order. */
  get names(): string[] {
    return [...this.#resolvers.keys()];
  }

  /**
   * The resolver of `name`.
   * @throws {@link SluiceConfigError} with option `limit` naming `name` when it is not defined.
   */
  get(name: string): LimitResolver {
    const resolver = this.#resolvers.get(name);
    if (resolver === undefined) {
      const defined = this.names.map((n) => JSON.stringify(n)).join(', ') || 'none';
      throw new SluiceConfigError(
        'limit',
        name,
        `a named limiter defined with ThrottleRegistry.define() (defined: ${defined})`,
      );
    }
    return resolver;
  }

  /**
   * Checks at configuration time that `name` is defined (Laravel's `ThrottleRequests`
   * fails at request time instead; sluice fails when the middleware is created).
   * @throws {@link SluiceConfigError} with option `limit` naming `name` when it is not defined.
   */
  assertDefined(name: string): void {
    this.get(name);
  }

  /**
   * Runs the named limiter `name` for `req` and returns its limits as an array (a single
   * `Limit` becomes `[limit]`), unchanged otherwise; a promise of them when the resolver is
   * async.
   *
   * @throws {@link SluiceConfigError} when `name` is not defined; `TypeError` when the
   *   resolver returns (or resolves to) something other than a `Limit` or an array of
   *   `Limit`s (a programming error that can only show on the request path).
   */
  resolve(name: string, req: RequestView): Limit[] | Promise<Limit[]> {
    const result = this.get(name)(req);
    if (isPromiseLike(result)) {
      return Promise.resolve(result).then((r) => [...normalizeResolved(name, r)]);
    }
    return [...normalizeResolved(name, result)];
  }
}

brandClass(ThrottleRegistry, 'ThrottleRegistry');

/**
 * The default registry (Laravel's `RateLimiter` facade): middleware uses it unless given
 * `throttles`. One per process, whatever mix of the ESM and CommonJS builds loads it (see
 * {@link processGlobal}): a limiter defined through `import` is seen by an adapter loaded
 * with `require`.
 *
 * @example
 * ```ts
 * throttles.define('api', (req) => Limit.perMinute(60).by(req.userId ?? req.ip));
 * app.use(rateLimit({ limit: 'throttle:api' }));
 * ```
 */
export const throttles: ThrottleRegistry = processGlobal('throttles', () => new ThrottleRegistry());

/**
 * A route's limit as configured: a throttle string (see `parseThrottle`), a
 * {@link Limit}, a function of the request returning the limit(s) or a promise of them (an
 * unnamed {@link LimitResolver}, express-rate-limit's `limit: async (req) => …`), or an
 * array of them (the request must pass every one).
 */
export type LimitInput =
  | string
  | Limit
  | LimitResolver
  | ReadonlyArray<string | Limit | LimitResolver>;

/**
 * One parsed element of a {@link LimitInput}: a fixed limit, or a resolver (a named
 * limiter's, or a function given as the limit: `name` undefined).
 */
export type ResolvedLimitEntry =
  | { readonly kind: 'limit'; readonly limit: Limit }
  | {
      readonly kind: 'named';
      readonly name: string | undefined;
      readonly resolver: LimitResolver;
    };

/**
 * A {@link LimitInput} parsed and checked once, at configuration time. Nothing in it is
 * parsed or looked up on the request path.
 */
export interface ResolvedLimits {
  /** The elements of the input, in order. */
  readonly entries: readonly ResolvedLimitEntry[];
  /** `true` when no entry is a named limiter: {@link ResolvedLimits.limitsFor} ignores its request. */
  readonly isStatic: boolean;
  /**
   * The limits that apply to `req`, in input order: fixed limits as given, then each named
   * limiter's result in its place. A limit from a named limiter that has no
   * {@link Limit.name} gets one derived from the limiter's name (Laravel keys named
   * limits by limiter name), so `'throttle:api'` and `'throttle:login'` never share a key:
   * the name itself (`'api'`) when the limiter returned one limit, and
   * `'<name>.<maxAttempts>-per-<periodMs>ms'` (`'login.5-per-60000ms'`,
   * `'login.100-per-86400000ms'`) when it returned several, so that
   * `[Limit.perMinute(5).by(ip), Limit.perDay(100).by(ip)]` keeps two counters. A named
   * limiter's `.by(subject)` limit comes back as `.by('<i>:<subject>')`, `i` being its
   * position in the limiter's result, so the subjects of two `.by()` limits of one limiter
   * (an IP and an email) never share a key. When
   * {@link ResolvedLimits.isStatic}, returns the same frozen array on every call (no allocation).
   * Unlimited limits ({@link Limit.none}) are included; the caller skips them. A promise
   * when a resolver returned one (synchronous resolvers keep it synchronous).
   *
   * @throws `TypeError` (or rejects with it) when a resolver gives something other than
   *   `Limit | Limit[]`; whatever a resolver throws or rejects with.
   */
  limitsFor(req: RequestView): readonly Limit[] | Promise<readonly Limit[]>;
}

const INPUT_FORMS =
  "a throttle string (e.g. 'throttle:60,1', 'throttle:api', '60/min'), a Limit, " +
  'a function (req) => Limit | Limit[] (or a promise of them), or a non-empty array of them';

/**
 * Parses and validates a route's {@link LimitInput} once, when the middleware is created:
 * throttle strings are parsed with `parseThrottle`, named limiters are looked up in
 * `registry` (their resolver is kept, so a later redefinition does not affect this result).
 *
 * @param registry - where `'throttle:<name>'` is looked up. Default {@link throttles}.
 * @throws {@link SluiceConfigError} with option `limit` for a malformed throttle string,
 *   an unknown named limiter, an empty array, a nested array or any other value; with
 *   option `throttles` when `registry` is not a {@link ThrottleRegistry}.
 */
export function resolveLimitInput(
  input: LimitInput,
  registry: ThrottleRegistry = throttles,
): ResolvedLimits {
  if (!(registry instanceof ThrottleRegistry)) {
    throw new SluiceConfigError('throttles', registry, 'a ThrottleRegistry');
  }
  let items: ReadonlyArray<unknown>;
  if (Array.isArray(input)) {
    if (input.length === 0) throw new SluiceConfigError('limit', input, INPUT_FORMS);
    items = input;
  } else {
    items = [input];
  }
  const entries: ResolvedLimitEntry[] = items.map((item) => resolveItem(item, registry));
  return makeResolved(Object.freeze(entries));
}

function resolveItem(item: unknown, registry: ThrottleRegistry): ResolvedLimitEntry {
  if (item instanceof Limit) return Object.freeze({ kind: 'limit', limit: item });
  if (typeof item === 'function') {
    return Object.freeze({ kind: 'named', name: undefined, resolver: item as LimitResolver });
  }
  if (typeof item !== 'string') throw new SluiceConfigError('limit', item, INPUT_FORMS);
  const spec = parseThrottle(item);
  if (spec.kind === 'named') {
    return Object.freeze({ kind: 'named', name: spec.name, resolver: registry.get(spec.name) });
  }
  // parseThrottle returns exactly one limit for every string form.
  return Object.freeze({ kind: 'limit', limit: spec.limits[0]! });
}

function makeResolved(entries: readonly ResolvedLimitEntry[]): ResolvedLimits {
  const isStatic = entries.every((entry) => entry.kind === 'limit');
  if (isStatic) {
    const limits = Object.freeze(
      entries.map((entry) => (entry as { kind: 'limit'; limit: Limit }).limit),
    );
    return Object.freeze({ entries, isStatic, limitsFor: () => limits });
  }
  const count = entries.length;
  const limitsFor = (req: RequestView): readonly Limit[] | Promise<readonly Limit[]> => {
    // perf: results in one array, awaited only when a resolver returned a promise.
    const results: unknown[] = new Array(count);
    let pending = false;
    for (let i = 0; i < count; i++) {
      const entry = entries[i]!;
      if (entry.kind === 'limit') results[i] = entry.limit;
      else {
        const r = entry.resolver(req);
        if (isPromiseLike(r)) pending = true;
        results[i] = r;
      }
    }
    return pending ? Promise.all(results).then(collect) : collect(results);
  };
  const collect = (results: unknown[]): readonly Limit[] => {
    const limits: Limit[] = [];
    for (let i = 0; i < count; i++) {
      const entry = entries[i]!;
      if (entry.kind === 'limit') {
        limits.push(entry.limit);
        continue;
      }
      const resolved = normalizeResolved(entry.name, results[i]);
      const name = entry.name;
      const several = resolved.length > 1;
      for (let j = 0; j < resolved.length; j++) {
        let limit = resolved[j]!;
        // A subject from the request (an IP, an email) is tagged with its limit's position in
        // the result: two `.by()` limits of one limiter never share a key, and a subject can
        // never read as the `<route>:ip:…` part of a key without `.by()`.
        if (limit.subject !== undefined) limit = limit.by(`${j}:${limit.subject}`);
        if (limit.name !== undefined || name === undefined) limits.push(limit);
        else if (!several) limits.push(limit.named(name));
        else {
          const quota = `${limit.maxAttempts}-per-${limit.periodMs}ms`;
          limits.push(limit.named(`${name}.${quota}`));
        }
      }
    }
    return limits;
  };
  return Object.freeze({ entries, isStatic, limitsFor });
}

/** A resolver's result as an array of Limits: the resolver's own array, not a copy. */
function normalizeResolved(name: string | undefined, result: unknown): readonly Limit[] {
  if (result instanceof Limit) return [result];
  if (Array.isArray(result) && result.every((item) => item instanceof Limit)) return result;
  const who = name === undefined ? 'the limit function' : `named limiter ${JSON.stringify(name)}`;
  throw new TypeError(
    `sluice: ${who} must return a Limit or an array of Limits (or a promise of one), ` +
      `got ${describeValue(result)}`,
  );
}
