import { brandClass } from './process-global.js';

/**
 * Thrown when a limiter, algorithm, store or middleware is constructed with an invalid
 * value or an unknown option name. The message names the option and describes the value by
 * its kind, for example
 * `sluice: invalid option "rate": expected a finite number > 0, got a number (0)` or
 * `sluice: unknown option "windowMs" in rateLimit(): sluice has no "windowMs": …`.
 * A value is never serialised into the message (see {@link describe}), so a secret it
 * carries (a Redis password) cannot reach a log through it.
 *
 * Thrown at construction time only; nothing invalid is discovered on the request path.
 *
 * @example
 * ```ts
 * try {
 *   gcra({ rate: 0, period: '1s' });
 * } catch (error) {
 *   if (error instanceof SluiceConfigError) console.error(error.option, error.message);
 * }
 * ```
 */
export class SluiceConfigError extends Error {
  /** The option that was invalid or unknown, e.g. `"rate"`, `"limit"` or `"windowMs"`. */
  readonly option: string;
  /**
   * The value that was given (`undefined` for an unknown option name). Not enumerable, so
   * logging the error (`console.error(error)`, `util.inspect`) does not print it.
   */
  declare readonly value: unknown;

  /**
   * @param option - the option's name.
   * @param value - the value given; described by its kind in the message, never serialised.
   * @param expected - what the option takes, e.g. `'a finite number > 0'`.
   * @param detail - `hint`: a sentence appended to the message (what to write instead);
   *   `message`: replaces the whole message.
   */
  constructor(
    option: string,
    value: unknown,
    expected: string,
    detail: { hint?: string; message?: string } = {},
  ) {
    const hint = detail.hint === undefined ? '' : `; ${detail.hint}`;
    super(
      detail.message ??
        `sluice: invalid option "${option}": expected ${expected}, got ${describe(value)}${hint}`,
    );
    this.name = 'SluiceConfigError';
    this.option = option;
    Object.defineProperty(this, 'value', { value, enumerable: false });
  }

  /**
   * The error for an option name that is not one of the call's options.
   *
   * @param option - the unknown name.
   * @param where - the call it was given to, e.g. `'rateLimit()'` or `'new RedisStore()'`.
   * @param hint - what to write instead.
   */
  static unknownOption(option: string, where: string, hint: string): SluiceConfigError {
    const name = optionName(option);
    return new SluiceConfigError(name, undefined, '', {
      message: `sluice: unknown option ${name === option ? `"${name}"` : name} in ${where}: ${hint}`,
    });
  }
}

/**
 * An option name as errors show it: the name itself when it looks like one (letters, digits,
 * `_`, `$`, `.`, `-`, at most 40 characters); else `a name of N characters`, since a
 * property name can carry anything (a Redis URL with its password).
 */
export function optionName(name: string): string {
  return /^[A-Za-z_$][\w$.-]{0,39}$/.test(name) ? name : `a name of ${name.length} characters`;
}

// `instanceof SluiceConfigError` holds for errors thrown by either build (ESM or CommonJS).
brandClass(SluiceConfigError, 'SluiceConfigError');
// On the prototype too, so the stack's first line (written when the error is made, before
// the constructor sets `name`) reads `SluiceConfigError: …`.
Object.defineProperty(SluiceConfigError.prototype, 'name', {
  value: 'SluiceConfigError',
  writable: true,
  configurable: true,
});

/** The most object keys {@link describe} lists. */
const MAX_KEYS = 6;
/** The longest key (or string value) {@link describe} shows, in characters. */
const MAX_SHOWN = 40;

/**
 * Whether `value` has the shape of a Redis client: ioredis or iovalkey (`Redis` or
 * `Cluster`: `evalsha`, `defineCommand` and a `status` string), or node-redis
 * (`createClient`, `createCluster`, `createSentinel`: `evalSha`, `sendCommand` and the
 * `isOpen` getter), or `@upstash/redis` (`pipeline`, `evalsha`, `createScript`). Recognised
 * by shape, so the core needs no Redis client import.
 */
export function isRedisClientLike(value: unknown): boolean {
  return redisClientKind(value) !== undefined;
}

/**
 * The hint of a `store` option that is not a Store but something a user may take for one:
 * a Redis client (wrap it in `RedisStore`) or a Workers KV namespace (refused: KV reads,
 * then writes, so concurrent requests overwrite each other's counts). Undefined otherwise.
 */
export function notAStoreHint(value: unknown): string | undefined {
  if (isRedisClientLike(value)) return 'wrap it: `new RedisStore({ client })` (from @sluice/redis)';
  const v = value as Record<string, unknown> | null;
  if (
    v !== null &&
    typeof v === 'object' &&
    typeof v.getWithMetadata === 'function' &&
    typeof v.put === 'function' &&
    typeof v.list === 'function'
  ) {
    return (
      'a Workers KV namespace: KV is not a counter store (no atomic increment: concurrent ' +
      "requests overwrite each other's counts); use DurableObjectStore or " +
      'WorkersRateLimitBindingStore from @sluice/cloudflare'
    );
  }
  return undefined;
}

/** The kind of a Redis client (see {@link isRedisClientLike}), or undefined. */
function redisClientKind(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (
    typeof v.evalsha === 'function' &&
    typeof v.defineCommand === 'function' &&
    typeof v.status === 'string'
  ) {
    return v.isCluster === true ? 'an ioredis Cluster client' : 'an ioredis Redis client';
  }
  if (typeof v.evalSha === 'function' && typeof v.sendCommand === 'function' && 'isOpen' in v) {
    if ('slots' in v && 'masters' in v) return 'a node-redis Cluster client';
    if (typeof v.getMasterNode === 'function') return 'a node-redis Sentinel client';
    return 'a node-redis client';
  }
  if (
    typeof v.pipeline === 'function' &&
    typeof v.evalsha === 'function' &&
    typeof v.createScript === 'function'
  ) {
    return 'an @upstash/redis client';
  }
  return undefined;
}

/**
 * Describes a value for an error message by its kind, never by serialising it:
 * `a number (0)`, `true`, `undefined`, `null`, `a string ("throttle:6x,1")` (short strings
 * with no `@` or `://`, which could carry credentials; else `a string of N characters`),
 * `a function`, `the class RedisStore`, `an array of 3 items`, `an ioredis Redis client`,
 * `an ioredis Cluster client`, `a node-redis client` (`Cluster`, `Sentinel`), `a Map`, `an object with keys a, b` (key names only, at most
 * six, each as {@link optionName} shows it).
 *
 * @example
 * ```ts
 * describe(new Redis('redis://:secret@host')); // 'an ioredis Redis client'
 * describe({ windowMs: 1000, max: 5 });        // 'an object with keys windowMs, max'
 * ```
 */
export function describe(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'boolean':
      return String(value);
    case 'number':
      return `a number (${value})`;
    case 'bigint':
      return `a bigint (${value}n)`;
    case 'symbol':
      return 'a symbol';
    case 'string':
      return value.length <= MAX_SHOWN && !/@|:\/\//.test(value)
        ? `a string (${JSON.stringify(value)})`
        : `a string of ${value.length} characters`;
    case 'function': {
      const source = Function.prototype.toString.call(value);
      const name = shortName(value.name);
      if (source.startsWith('class') && name !== '') return `the class ${name}`;
      return 'a function';
    }
  }
  if (value === null) return 'null';
  const client = redisClientKind(value);
  if (client !== undefined) return client;
  if (Array.isArray(value)) {
    return value.length === 1 ? 'an array of 1 item' : `an array of ${value.length} items`;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== null && proto !== Object.prototype) {
    const name = shortName((value as { constructor?: { name?: unknown } }).constructor?.name);
    if (name !== '') return `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}`;
  }
  const keys = Object.keys(value as object);
  if (keys.length === 0) return 'an empty object';
  const shown = keys.slice(0, MAX_KEYS).map(shortName);
  const more = keys.length > MAX_KEYS ? ` and ${keys.length - MAX_KEYS} more` : '';
  return `an object with ${keys.length === 1 ? 'key' : 'keys'} ${shown.join(', ')}${more}`;
}

/** A name to show (see {@link optionName}); '' for anything but a string. */
function shortName(name: unknown): string {
  if (typeof name !== 'string') return '';
  return optionName(name);
}
