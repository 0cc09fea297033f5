import { type Duration, parseWholeMs } from '../../common/duration.js';
import { SluiceConfigError } from '../../common/errors.js';
import type { StoreFailureLogger } from '../../store-failure/store-failure.js';

/** The options whose functions may return a promise, as errors and logs name them. */
export type ResolverOption = 'limit' | 'key' | 'user' | 'skip';

/**
 * Default bound on an async resolver: 5 s. Resolvers read the application's data (a plan
 * from a database, a tenant from a cache), which may be slower than a store call
 * (`timeoutMs`, 500 ms on Redis) without anything being wrong; 5 s lets a slow database
 * answer and still ends a hung one long before a proxy's or a client's own timeout
 * (nginx and AWS ALB: 60 s), so the request gets a clear 500 instead of hanging.
 */
export const DEFAULT_RESOLVER_TIMEOUT_MS = 5000;

/**
 * The `resolverTimeout` option: a duration (ms or a string such as `'2s'`) of at least 1 ms,
 * or `false` for no bound (`Infinity`).
 *
 * @throws {@link SluiceConfigError} naming `resolverTimeout`.
 */
export function parseResolverTimeout(value: Duration | false | undefined): number {
  if (value === undefined) return DEFAULT_RESOLVER_TIMEOUT_MS;
  if (value === false) return Number.POSITIVE_INFINITY;
  const ms =
    typeof value === 'number' || typeof value === 'string'
      ? parseWholeMs('resolverTimeout', value)
      : Number.NaN;
  if (!(ms >= 1)) {
    throw new SluiceConfigError(
      'resolverTimeout',
      value,
      "a duration of at least 1 ms (a number of ms or a string such as '2s'), or false for no bound",
    );
  }
  return ms;
}

/**
 * The error a request gets when one of its async resolvers (`limit` / a named limiter,
 * `key`, `user`, `skip`) has not settled within `resolverTimeout`: passed to the
 * framework's error handling (a 500), as a resolver's own rejection is. Its `name` is
 * `'ResolverTimeoutError'`, not `'TimeoutError'`: some servers (@hono/node-server) answer an
 * error named `TimeoutError` with 504, and the answer must be the same 500 everywhere.
 * Its `option` is the resolver's option.
 */
export class ResolverTimeoutError extends Error {
  /** The option whose resolver did not settle: `'limit'`, `'key'`, `'user'` or `'skip'`. */
  readonly option: ResolverOption;

  constructor(option: ResolverOption, timeoutMs: number) {
    super(
      `sluice: the ${option} resolver did not settle within ${timeoutMs} ms (option resolverTimeout): ` +
        'the request is answered with an error instead of waiting for it',
    );
    this.name = 'ResolverTimeoutError';
    this.option = option;
  }
}

/** One bounded resolver call, waiting in {@link ResolverTimeouts}' queue. */
interface Pending {
  deadline: number;
  option: ResolverOption;
  reject: (error: unknown) => void;
  /** Settled in time, or timed out: nothing more to do. */
  done: boolean;
}

/**
 * Bounds one limiter's async resolvers by `resolverTimeout`: a promise still pending then
 * rejects with a {@link ResolverTimeoutError}. One log line (`logger.warn`) per resolver
 * when it starts timing out, and no more until it has settled in time again: a hung
 * database logs once, not once per request.
 *
 * perf: one timer per limiter, not one per call: every call has the same timeout, so the
 * calls wait in a queue in deadline order and the timer is armed for the oldest one;
 * calls that settle (most, in order) leave the queue's head at once.
 */
export class ResolverTimeouts {
  readonly #timeoutMs: number;
  readonly #logger: StoreFailureLogger;
  /** The resolvers whose last call timed out (logged; quiet until one settles in time). */
  readonly #failing = new Set<ResolverOption>();
  #queue: Pending[] = [];
  #head = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(timeoutMs: number, logger: StoreFailureLogger) {
    this.#timeoutMs = timeoutMs;
    this.#logger = logger;
  }

  /** `value`, or a rejection with {@link ResolverTimeoutError} when it has not settled in time. */
  bound<T>(value: PromiseLike<T>, option: ResolverOption): Promise<T> {
    const ms = this.#timeoutMs;
    if (ms === Number.POSITIVE_INFINITY) return Promise.resolve(value);
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { deadline: Date.now() + ms, option, reject, done: false };
      this.#queue.push(entry);
      if (this.#timer === undefined) this.#arm(ms);
      Promise.resolve(value).then(
        (v) => {
          if (entry.done) return;
          entry.done = true;
          this.#failing.delete(option);
          this.#dropSettled();
          resolve(v);
        },
        (error: unknown) => {
          if (entry.done) return;
          entry.done = true;
          this.#dropSettled();
          reject(error);
        },
      );
    });
  }

  #arm(ms: number): void {
    const timer = setTimeout(() => this.#expire(), Math.max(0, ms));
    (timer as { unref?: () => void }).unref?.();
    this.#timer = timer;
  }

  /** Moves the head past calls already settled; keeps the queue's array short. */
  #dropSettled(): void {
    const q = this.#queue;
    while (this.#head < q.length && q[this.#head]!.done) this.#head++;
    if (this.#head === q.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > q.length) {
      this.#queue = q.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Rejects every call past its deadline, then arms the timer for the next one. */
  #expire(): void {
    this.#timer = undefined;
    const now = Date.now();
    const q = this.#queue;
    while (this.#head < q.length) {
      const entry = q[this.#head]!;
      if (!entry.done) {
        if (entry.deadline > now) break;
        entry.done = true;
        this.#timedOut(entry.option);
        entry.reject(new ResolverTimeoutError(entry.option, this.#timeoutMs));
      }
      this.#head++;
    }
    this.#dropSettled();
    if (this.#head < this.#queue.length) this.#arm(this.#queue[this.#head]!.deadline - now);
  }

  #timedOut(option: ResolverOption): void {
    if (this.#failing.has(option)) return;
    this.#failing.add(option);
    // perf: the error's own message, then what the log adds (a Worker bundle carries both).
    this.#logger.warn(
      `${new ResolverTimeoutError(option, this.#timeoutMs).message} (a 500); logged again once it settles in time`,
    );
  }
}
