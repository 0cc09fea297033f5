import { closestName } from './closest-name.js';
import { optionName, SluiceConfigError } from './errors.js';

// perf: the hints share their phrases (a Worker bundle carries them: 32 KB gzip gate).
const LIMIT = "write limit: '100/min' (or 'throttle:100,1', Limit.perMinute(100))";
const WINDOW = `the window is part of the limit: ${LIMIT}`;
const COUNT = `the count is part of the limit: ${LIMIT}`;
const STORE = 'write store: new RedisStore({ client }) (from @sluice/redis)';
const ON_LIMITED = 'write onLimited: (req, decision) => void';
const SKIP = 'write skip: (req) => boolean';

/**
 * What to write instead of an option name other rate limiters use (express-rate-limit,
 * @fastify/rate-limit, koa-ratelimit, rate-limiter-flexible, @nestjs/throttler).
 */
const PEER_NAMES: Readonly<Record<string, string>> = {
  windowMs: "the window is part of the limit: write limit: 'throttle:100,15' (100 per 15 minutes)",
  max: COUNT,
  timeWindow: WINDOW,
  duration: WINDOW,
  points: COUNT,
  ttl: WINDOW,
  keyGenerator: 'write key: (req) => string (the request as a RequestView)',
  keyPrefix: "write prefix: 'my-app'",
  standardHeaders: "write headers: 'draft-7' (or 'draft-6', 'draft-8', or an array of them)",
  legacyHeaders: "write headers: 'legacy' (the default) or headers: false",
  draft_polli_ratelimit_headers: "write headers: 'draft-6'",
  addHeaders: "write headers: false, or one or more of 'legacy', 'draft-6', 'draft-7', 'draft-8'",
  allowList: SKIP,
  whitelist: SKIP,
  requestPropertyName:
    'the decision is always on the request (req.rateLimit, request.rateLimit, ctx.state.rateLimit)',
  redis: STORE,
  storeClient: STORE,
  db: STORE,
  onLimitReached: ON_LIMITED,
  onExceeded: ON_LIMITED,
  onExceeding: ON_LIMITED,
  limiter: 'write limit (a throttle string such as throttle:60,1, a Limit, or an array of them)',
  rate: `${LIMIT}; an algorithm takes its own rate`,
};

/**
 * What an error about the unknown option `name` says to write instead: the sluice name for
 * a peer library's option (`windowMs`, `max`, `keyGenerator`, `timeWindow`…), a "did you
 * mean" for a near miss of a known name, else the list of known names.
 */
export function unknownOptionHint(name: string, known: readonly string[]): string {
  if (optionName(name) !== name) return `the options are ${known.join(', ')}`;
  const close = closestName(name, known);
  if (close !== undefined) return `did you mean "${close}"?`;
  if (Object.hasOwn(PEER_NAMES, name)) return `sluice has no "${name}": ${PEER_NAMES[name]}`;
  return `the options are ${known.join(', ')}`;
}

/**
 * The names of an options type, from an object that must list every one of them: adding an
 * option to the type without adding it here is a compile error, so the unknown-name check
 * can never reject a real option.
 *
 * @example
 * ```ts
 * const GCRA_OPTIONS = optionNames<GcraOptions>({ rate: true, period: true, burst: true });
 * ```
 */
export function optionNames<T>(names: Record<keyof T, true>): readonly string[] {
  return Object.keys(names);
}

/**
 * Checks that every own enumerable property name of `options` is one of `known`: options
 * sluice would otherwise ignore (typos, or another rate limiter's names for them) are one
 * {@link SluiceConfigError} that names every one of them, each with what to write instead;
 * `error.option` is the first. A property whose value is `undefined` counts too:
 * `{ windowMs: undefined }` is still a misunderstanding worth reporting.
 *
 * @param options - the options object (already known to be a non-null object).
 * @param known - the option names accepted there.
 * @param where - the call the options were given to, for the message, e.g. `'gcra()'`.
 * @throws {@link SluiceConfigError} for the unknown names, e.g.
 *   `sluice: unknown option "windowMs" in rateLimit(): sluice has no "windowMs": the window is part of the limit: …`
 *   or, for several, `sluice: unknown options in rateLimit(): "windowMs" (sluice has no …); "max" (…)`.
 *
 * @example
 * ```ts
 * checkOptionNames({ rate: 10, perod: '1s' }, ['rate', 'period', 'burst'], 'gcra()');
 * // SluiceConfigError: sluice: unknown option "perod" in gcra(): did you mean "period"?
 * ```
 */
export function checkOptionNames(options: object, known: readonly string[], where: string): void {
  const unknown = Object.keys(options).filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  const first = unknown[0]!;
  if (unknown.length === 1) {
    throw SluiceConfigError.unknownOption(first, where, unknownOptionHint(first, known));
  }
  const each = unknown.map((name) => {
    const shown = optionName(name);
    return `${shown === name ? `"${name}"` : shown} (${unknownOptionHint(name, known)})`;
  });
  throw new SluiceConfigError(optionName(first), undefined, '', {
    message: `sluice: unknown options in ${where}: ${each.join('; ')}`,
  });
}
