import type { Algorithm } from '../algorithms/algorithm.js';
import type { Decision } from '../algorithms/decision.js';
import type { Duration } from '../common/duration.js';
import { durationMs } from '../common/duration.js';
import { describe, SluiceConfigError } from '../common/errors.js';
import type { StoreReservation } from '../stores/store.js';

/** Options of {@link RateLimiter.reserve}. */
export interface ReserveOptions {
  /** Units to book: an integer >= 0. Default 1. A bad value is a `TypeError`. */
  cost?: number;
  /**
   * The longest wait to book: ms (a number >= 0; 0 books only what `consume` would admit
   * now) or a duration string (`'500ms'`, `'5s'`). Required. A bad value is a `TypeError`.
   */
  maxWait: Duration;
  /** Cancels the reservation (gives its slot back) when aborted before its slot comes. */
  signal?: AbortSignal;
}

/**
 * A booked (or refused) future slot: what {@link RateLimiter.reserve} resolves to.
 *
 * @example
 * ```ts
 * const r = await limiter.reserve('api', { maxWait: '5s' });
 * if (!r.allowed) return tooMany(r.decision.retryAfterMs);
 * await sleep(r.delayMs); // the slot is ours; `r.cancel()` gives it back if we give up
 * ```
 */
export interface Reservation {
  /** Whether the slot is booked: the request may go once `delayMs` has passed. */
  readonly allowed: boolean;
  /**
   * Ms to wait, from when the store decided, before the slot conforms (0: at once; exact,
   * may carry a fraction). 0 when not allowed.
   */
  readonly delayMs: number;
  /**
   * The store's decision: when allowed, the booking (charged as a `consume` charges); else
   * the denial `consume` would give, whose `retryAfterMs` is the wait that passed `maxWait`
   * (-1: the cost never fits).
   */
  readonly decision: Decision;
  /**
   * Gives the booked slot back exactly (the store's `refund` of the same cost), once: a
   * second call, or a call on a refused reservation, gives nothing back and resolves to
   * `undefined`. Resolves to the key's peek after the give-back. Never rejects for a store
   * failure (the limiter's `onStoreError` decides).
   */
  cancel(): Promise<Decision | undefined>;
}

/**
 * `maxWait` in ms: a number >= 0 (finite, or `Infinity` for `acquire`'s no-limit), or a
 * duration string. `TypeError` otherwise (a call-site error).
 */
export function callWaitMs(option: string, value: unknown): number {
  if (value === 0) return 0;
  if (value === Number.POSITIVE_INFINITY) return Number.MAX_SAFE_INTEGER;
  const ms = durationMs(value);
  if (ms === undefined) {
    throw new TypeError(
      `sluice: ${option} must be ms >= 0 or a duration string such as '5s', got ${describe(value)}`,
    );
  }
  return ms;
}

/**
 * `SluiceConfigError` unless `algorithm` can book a future slot (GCRA and the buckets).
 * @param option - the option that chose the algorithm, for the message.
 */
export function checkReservable(algorithm: Algorithm, option = 'algorithm'): void {
  if (typeof algorithm.reserve === 'function') return;
  throw new SluiceConfigError(
    option,
    String(algorithm.description),
    'GCRA or a bucket (gcra, leakyBucket, tokenBucket): a window has no future slot to reserve or queue for',
  );
}

/**
 * The {@link Reservation} of a store's answer. `giveBack` refunds the slot; `signal`, when
 * given and the slot is ahead, cancels it if aborted before `dueAt` (on `clock`).
 */
export function reservationOf(
  booked: StoreReservation,
  giveBack: () => Promise<Decision>,
  signal: AbortSignal | undefined,
  clock: () => number,
): Reservation {
  const { decision, delayMs } = booked;
  let open = decision.allowed && decision.cost > 0;
  const cancel = (): Promise<Decision | undefined> => {
    if (!open) return Promise.resolve(undefined);
    open = false;
    signal?.removeEventListener('abort', onAbort);
    return giveBack();
  };
  const dueAt = clock() + delayMs;
  const onAbort = (): void => {
    if (clock() < dueAt) void cancel();
  };
  if (open && delayMs > 0 && signal !== undefined) {
    signal.addEventListener('abort', onAbort, { once: true });
  }
  return { allowed: decision.allowed, delayMs, decision, cancel };
}

/**
 * Waits `ms` with `sleep`, or until `signal` aborts: resolves `true` when the wait ended,
 * `false` when aborted first (the abort listener is removed either way).
 */
export function waitOrAbort(
  ms: number,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (signal === undefined) return sleep(ms).then(() => true);
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve, reject) => {
    const onAbort = (): void => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    sleep(ms, signal).then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * The default `sleep`: a `setTimeout` promise, cleared (and resolved) when `signal` aborts,
 * so an aborted wait holds no timer.
 */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', done);
      resolve();
    }, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The rejection reason of an aborted call: the signal's reason, as `fetch` rejects. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
