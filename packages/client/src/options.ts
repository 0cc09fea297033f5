import { type Duration, durationMs } from '@sluice/core/duration';
import { closestName } from '@sluice/core/shared';
import { SluiceConfigError } from './errors.js';

/**
 * The options of {@link pacedFetch}.
 *
 * @example
 * ```ts
 * const api = pacedFetch(fetch, { maxWait: '10s', retries: 1 });
 * ```
 */
export interface PacedFetchOptions {
  /**
   * The longest a request may wait in all (before it is sent and before each retry): a
   * number of **ms** (`0` never waits, `Infinity` waits as long as the server says) or a
   * duration string read as `@sluice/core` reads one (`'500ms'`, `'30s'`, `'1 minute'`,
   * `'2m'`, `'1h'`). When the policy the client last saw needs a longer wait, the request is
   * not sent and rejects at once with {@link WaitTooLongError}.
   * @default 60_000 (60 s)
   * @throws {@link SluiceConfigError} naming `maxWait` for a negative or NaN number or a
   * string that is not a duration.
   */
  maxWait?: Duration;
  /**
   * How many times a 429 or 503 response carrying `Retry-After` is retried after the wait it
   * names (an integer >= 0). After the last retry the 429 / 503 is returned as it is.
   * @default 2
   */
  retries?: number;
  /**
   * The clock, in **ms** since the Unix epoch (tests inject a fake one; `X-RateLimit-Reset`
   * epochs are read against it).
   * @default Date.now
   */
  clock?: () => number;
  /**
   * Waits `ms` milliseconds; rejects with `signal.reason` when `signal` aborts (tests inject
   * a fake one that moves a fake clock).
   * @default a setTimeout-based sleep
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Throttles requests to an origin that sends no rate-limit headers by Google SRE's
   * client-side formula ("Handling Overload" in the SRE book): each request is rejected
   * locally, without sending, with probability max(0, (requests - 2·accepts) /
   * (requests + 1)), where `requests` are the requests attempted to the origin over the
   * trailing 2 minutes (in 1 s buckets, local rejections included) and `accepts` the answers
   * other than 429 / 503 (a failed fetch is not one). A rejection is a
   * {@link SelfThrottledError}. While the origin's latest answer carries rate-limit policies
   * (any header style this package reads), those pace and the formula is not applied; a
   * `Retry-After` on a 429 / 503 still paces the retry first.
   * @default false
   */
  selfThrottle?: boolean;
  /**
   * A request's tokens, for the token policies of OpenAI's and Anthropic's headers
   * (`x-ratelimit-*-tokens`, `anthropic-ratelimit-{tokens,input-tokens,output-tokens}-*`):
   * called once per call with a `Request` of it (a copy: its body may be read; a stream body
   * is not copied, the `Request` has none), before the call waits. Each token policy then
   * counts that many tokens for the request (`input-tokens` and `output-tokens` the whole
   * estimate too, erring on the slow side). Without it, token policies do not pace. A result
   * that is not a finite number >= 0, or a throw, rejects the call (it is not sent).
   * `@sluice/ai`'s `estimateTokens` is one.
   * @default undefined (token policies are not paced)
   */
  estimate?: (request: Request) => number | Promise<number>;
  /**
   * The random source of `selfThrottle`, numbers in [0, 1) (tests inject a seeded one).
   * @default Math.random
   */
  random?: () => number;
}

/** {@link PacedFetchOptions} parsed once: every field present (internal). */
export interface PacedFetchConfig {
  maxWait: number;
  retries: number;
  clock: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  selfThrottle: boolean;
  estimate: ((request: Request) => number | Promise<number>) | undefined;
  random: () => number;
}

/**
 * The default `maxWait`, in ms: 60 s.
 *
 * @example
 * ```ts
 * const patient = pacedFetch(fetch, { maxWait: 5 * DEFAULT_MAX_WAIT }); // 5 minutes
 * ```
 */
export const DEFAULT_MAX_WAIT = 60_000;
/**
 * The default `retries`: 2 (ky's default retry limit too).
 *
 * @example
 * ```ts
 * const stubborn = pacedFetch(fetch, { retries: DEFAULT_RETRIES + 3 });
 * ```
 */
export const DEFAULT_RETRIES = 2;

const KNOWN = [
  'maxWait',
  'retries',
  'clock',
  'sleep',
  'selfThrottle',
  'estimate',
  'random',
] as const;

/** What to write instead of the peers' option names (ky, axios-retry, p-retry, bottleneck). */
const PEER_HINTS: Record<string, string> = {
  retry: 'write "retries" (a number of retries)',
  limit: 'write "retries" (a number of retries); the pace comes from the server',
  maxRetries: 'write "retries"',
  retryDelay: 'the delay comes from the server\'s Retry-After; "maxWait" caps it',
  maxWaitMs: 'write "maxWait" (ms or a string like \'30s\')',
  timeout: 'write "maxWait" (ms or \'30s\'), the longest a request waits for the rate limit',
  minTime: "the pace comes from the server's headers; no static rate is needed",
  maxConcurrent: 'the cap on requests in flight comes from a "concurrent-requests" policy',
  interval: "the pace comes from the server's headers; no static rate is needed",
  now: 'write "clock"',
  throttle: 'write "selfThrottle: true" (for servers that send no rate-limit headers)',
  adaptiveThrottle: 'write "selfThrottle: true"',
  estimateTokens: 'write "estimate" (a function of the Request giving its tokens)',
};

/**
 * Parses {@link PacedFetchOptions} into a {@link PacedFetchConfig}.
 * @throws {@link SluiceConfigError} naming the option (all unknown names in one message).
 */
export function parseOptions(fetchFn: unknown, options: unknown): PacedFetchConfig {
  if (typeof fetchFn !== 'function') {
    throw new SluiceConfigError('fetch', fetchFn, 'a fetch function, e.g. globalThis.fetch');
  }
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new SluiceConfigError('options', options, 'an object');
  }
  const o = options as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !(KNOWN as readonly string[]).includes(k));
  if (unknown.length > 0) {
    const parts = unknown.map((name) => `"${shownName(name)}" (${hintFor(name)})`);
    throw new SluiceConfigError(shownName(unknown[0]!), undefined, '', {
      message: `sluice: unknown option${unknown.length > 1 ? 's' : ''} ${parts.join(', ')} in pacedFetch(); it takes ${KNOWN.join(', ')}`,
    });
  }
  const maxWait = parseMaxWait(o.maxWait ?? DEFAULT_MAX_WAIT);
  const retries = o.retries ?? DEFAULT_RETRIES;
  if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0) {
    throw new SluiceConfigError('retries', retries, 'an integer >= 0');
  }
  const clock = o.clock ?? Date.now;
  if (typeof clock !== 'function') {
    throw new SluiceConfigError('clock', clock, 'a function returning ms since the Unix epoch');
  }
  const sleep = o.sleep ?? defaultSleep;
  if (typeof sleep !== 'function') {
    throw new SluiceConfigError('sleep', sleep, 'a function (ms, signal) => Promise<void>');
  }
  const selfThrottle = o.selfThrottle ?? false;
  if (typeof selfThrottle !== 'boolean') {
    throw new SluiceConfigError('selfThrottle', selfThrottle, 'true or false');
  }
  const estimate = o.estimate;
  if (estimate !== undefined && typeof estimate !== 'function') {
    throw new SluiceConfigError(
      'estimate',
      estimate,
      'a function (request: Request) => number | Promise<number> of tokens',
    );
  }
  const random = o.random ?? Math.random;
  if (typeof random !== 'function') {
    throw new SluiceConfigError('random', random, 'a function returning a number in [0, 1)');
  }
  return {
    maxWait,
    retries,
    clock: clock as () => number,
    sleep: sleep as PacedFetchConfig['sleep'],
    selfThrottle,
    estimate: estimate as PacedFetchConfig['estimate'],
    random: random as () => number,
  };
}

/**
 * `maxWait` in ms: a number >= 0 (Infinity included) as it is, a string through the core's
 * duration parser (the same strings as every sluice duration).
 */
function parseMaxWait(value: unknown): number {
  const ms = typeof value === 'number' ? (value >= 0 ? value : undefined) : durationMs(value);
  if (ms === undefined) {
    const expected =
      "a duration: a number of ms >= 0 (or Infinity), or a string like '500ms', '30s', '1 minute', '1h'";
    // A string is shown by its length only (a browser may take it from a URL or a form).
    const message =
      typeof value === 'string'
        ? `sluice: invalid option "maxWait": expected ${expected}, got a string of ${value.length} characters`
        : undefined;
    throw new SluiceConfigError('maxWait', value, expected, { message });
  }
  return ms;
}

/** An option name as messages show it (a key can carry anything: a token, a URL). */
function shownName(name: string): string {
  return /^[A-Za-z_$][\w$.-]{0,39}$/.test(name) ? name : `a name of ${name.length} characters`;
}

function hintFor(name: string): string {
  const peer = PEER_HINTS[name];
  if (peer !== undefined) return peer;
  const near = closestName(name, KNOWN);
  return near === undefined ? 'not an option' : `did you mean "${near}"?`;
}

/** `setTimeout` as a promise; rejects with `signal.reason` on abort. */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
