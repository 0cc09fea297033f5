import type { ExecutionContext } from '@nestjs/common';
import { type HttpLimitOptions, SluiceConfigError } from '@sluice/core';
import { splitHttpOptions } from '@sluice/core/http';
import type { RequestResponse, SluiceModuleOptions, ThrottleOptions } from './types.js';

/** {@link SluiceModuleOptions}, parsed once when the module is created. */
export interface SluiceConfig {
  /** The global limit's options, or `undefined` for `limit: false`. */
  globalLimit: HttpLimitOptions | undefined;
  /** What every `@Throttle` takes the options it does not give from. */
  shared: ThrottleOptions;
  /** Whether `SluiceGuard` is registered as a global guard. */
  global: boolean;
  /** The HTTP request and response behind a context (the option, or the default). */
  requestResponse: (context: ExecutionContext) => RequestResponse | undefined;
}

/** @nestjs/throttler's option names, and what to write instead. */
const THROTTLER_NAMES: Record<string, string> = {
  ttl: "write the window in the limit: limit: '10/min' or Limit.perMinutes(m, n)",
  throttlers: "give one limit or an array: limit: ['3/s', '100/min']",
  storage: 'write store: new RedisStore({ client }) (@sluice/redis)',
  skipIf: 'write skip: (req) => boolean (req is the request view; req.raw the request)',
  getTracker: 'write user: (req) => id (or key: (req) => string)',
  generateKey: 'write key: (req) => string',
  errorMessage: 'write message (a string or (req, decision) => body)',
  ignoreUserAgents: 'write skip: (req) => /bot/i.test(String(req.headers["user-agent"]))',
  blockDuration: "write Limit.perMinute(n).blockFor('15m')",
  name: 'write Limit.perMinute(n).named(name)',
};

/** Throws for a @nestjs/throttler option name, saying what to write instead. */
function rejectThrottlerNames(options: object, where: string): void {
  for (const name of Object.keys(options)) {
    const hint = THROTTLER_NAMES[name];
    if (hint !== undefined && Object.hasOwn(THROTTLER_NAMES, name)) {
      throw SluiceConfigError.unknownOption(name, where, `sluice has no "${name}": ${hint}`);
    }
  }
}

/**
 * The error for @nestjs/throttler's array of throttlers given to `forRoot`
 * (`ThrottlerModule.forRoot([{ ttl: 60000, limit: 10 }])`): what to write instead, built
 * from the array's own `ttl` (ms) and `limit` numbers and `name`s.
 */
function throttlerArray(items: unknown[], where: string): SluiceConfigError {
  const limits = items.map((item) => {
    const t = (item ?? {}) as { ttl?: unknown; limit?: unknown; name?: unknown };
    const ok = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;
    const base =
      ok(t.ttl) && ok(t.limit) ? `Limit.per(${t.limit}, ${t.ttl})` : 'Limit.per(limit, ttlMs)';
    const named = typeof t.name === 'string' && /^[\w.-]{1,40}$/.test(t.name);
    return named ? `${base}.named('${t.name}')` : base;
  });
  const limit = limits.length === 1 ? limits[0] : `[${limits.join(', ')}]`;
  return new SluiceConfigError('options', items, 'an options object', {
    message:
      `sluice: ${where} takes one options object, not @nestjs/throttler's array of throttlers ` +
      `(${items.length === 1 ? 'one item' : `${items.length} items`}): write ` +
      (where.includes('Async')
        ? `useFactory: () => ({ limit: ${limit} })`
        : `${where.replace(/\(\)$/, '')}({ limit: ${limit} })`) +
      ' (ttl is in ms: Limit.per(10, 60_000) is ' +
      "also '10/min'; several limits are all enforced, as throttlers are)",
  });
}

/** The HTTP request and response behind an HTTP or GraphQL context; other contexts: none. */
export function defaultRequestResponse(context: ExecutionContext): RequestResponse | undefined {
  const type = context.getType<string>();
  if (type === 'http') {
    const http = context.switchToHttp();
    return { req: http.getRequest(), res: http.getResponse() };
  }
  if (type === 'graphql') {
    const ctx = context.getArgByIndex(2) as Record<string, unknown> | undefined;
    const req = (ctx?.req ?? ctx?.request) as { res?: unknown } | undefined;
    const res = ctx?.res ?? ctx?.reply ?? req?.res;
    if (req !== undefined && res !== undefined) return { req, res };
    throw new TypeError(
      'sluice: this GraphQL context has no req and res: return them from the GraphQL ' +
        "module's context, or give SluiceModule the option getRequestResponse",
    );
  }
  return undefined; // WebSocket and microservice contexts are not HTTP requests
}

/**
 * Parses `SluiceModule.forRoot(options)`: names checked (an unknown one, or one of
 * @nestjs/throttler's, is a `SluiceConfigError` saying what to write instead), Nest's own
 * options split off. The HTTP options themselves are checked when the guard's limiters
 * are built, at application start.
 */
export function parseModuleOptions(options: SluiceModuleOptions, where: string): SluiceConfig {
  if (Array.isArray(options)) throw throttlerArray(options, where);
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an options object');
  }
  rejectThrottlerNames(options, where);
  const [own, core] = splitHttpOptions(
    options as SluiceModuleOptions & HttpLimitOptions,
    ['global', 'getRequestResponse'],
    where,
  );
  if (own.global !== undefined && typeof own.global !== 'boolean') {
    throw new SluiceConfigError('global', own.global, 'a boolean');
  }
  const rr = own.getRequestResponse;
  if (rr !== undefined && typeof rr !== 'function') {
    throw new SluiceConfigError('getRequestResponse', rr, 'a function (context) => { req, res }');
  }
  const { limit, ...shared } = core as Omit<HttpLimitOptions, 'limit'> & { limit?: unknown };
  return {
    globalLimit: limit === false ? undefined : (core as HttpLimitOptions),
    shared,
    global: own.global ?? true,
    requestResponse: rr ?? defaultRequestResponse,
  };
}

/** Checks the names of a `@Throttle`'s options (its values are checked with the limit). */
export function checkThrottleOptions(options: unknown, where: string): ThrottleOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an options object');
  }
  rejectThrottlerNames(options, where);
  const [, core] = splitHttpOptions(options as ThrottleOptions, [], where);
  if (Object.hasOwn(core, 'limit')) {
    throw SluiceConfigError.unknownOption('limit', where, 'the limit is the first argument');
  }
  return core;
}
