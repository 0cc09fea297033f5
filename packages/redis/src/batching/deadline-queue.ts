import { StoreAbandonedError, StoreTimeoutError } from '@sluice/core/store';
import { ISOLATED_REQUESTS } from '../runtime/isolation.js';
import { nextTurn, type Timer, unrefTimeout } from '../runtime/timers.js';

/** A call a {@link DeadlineQueue} watches: set `finished` when it is answered. */
export interface Pending {
  /** `performance.now()` past which the call is rejected; set by `track`. */
  deadline: number;
  reject: (error: Error) => void;
  finished: boolean;
  /**
   * The server the call was sent to (`'host:port'` on a Cluster, `''` on a standalone
   * Redis); undefined while unknown or not sent. {@link DeadlineQueue.failSent} reads it.
   */
  server?: string | undefined;
}

/** What a slot of the queue holds once its entry has left it (releases the entry). */
const FINISHED: Pending = { deadline: 0, reject: () => {}, finished: true };

/**
 * Bounds how long calls may take, with one timer for all of them: every call has the same
 * timeout, so deadlines arrive in call order and a FIFO queue needs only its head's timer.
 * A call past its deadline is rejected with {@link StoreTimeoutError}; its late answer is
 * ignored.
 *
 * A deadline that passed while this process's event loop was blocked (the timer fired
 * late) is not taken for a Redis failure: the rejection waits one `setImmediate`, after the
 * event loop's I/O poll, so a reply that arrived meanwhile and sits in the socket is read
 * and used first. Only a call still unanswered then is rejected.
 */
export class DeadlineQueue {
  /** The longest a call may take, in **ms**, before it rejects with {@link StoreTimeoutError}. */
  readonly timeoutMs: number;
  #queue: Pending[] = [];
  #head = 0;
  #timer: Timer | undefined;
  /** A timer per call, no shared queue (see `ISOLATED_REQUESTS`). */
  readonly #isolated: boolean;

  /**
   * @param isolated - a timer per call, in its caller's request, instead of one for all
   *   (Cloudflare Workers: a request's timers end with it). Default: the runtime's.
   */
  constructor(timeoutMs: number, isolated = ISOLATED_REQUESTS) {
    this.timeoutMs = timeoutMs;
    this.#isolated = isolated;
  }

  /**
   * Watches `entry` from now: unless it is `finished` first, its `reject` is called with
   * {@link StoreTimeoutError} after `timeoutMs` (and `finished` set).
   */
  track(entry: Pending): void {
    entry.deadline = performance.now() + this.timeoutMs;
    if (this.#isolated) {
      unrefTimeout(() => {
        if (entry.finished) return;
        entry.finished = true;
        entry.reject(new StoreTimeoutError(this.timeoutMs));
      }, this.timeoutMs);
      return;
    }
    // perf: entries answered already leave the head now, not at the next timer: each holds
    // its calls' promises, which would otherwise live (and be promoted out of V8's young
    // generation) for the whole timeout.
    const queue = this.#queue;
    while (this.#head < queue.length && queue[this.#head]!.finished) queue[this.#head++] = FINISHED;
    if (this.#head === queue.length && this.#head > 0) {
      queue.length = 0;
      this.#head = 0;
    }
    queue.push(entry);
    if (this.#timer === undefined) this.#arm(this.timeoutMs);
  }

  /** How many entries the queue holds (answered ones leave it when the next is tracked). */
  get size(): number {
    return this.#queue.length - this.#head;
  }

  /** `promise`, or a rejection with {@link StoreTimeoutError} after `timeoutMs`. */
  wrap<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { deadline: 0, reject, finished: false };
      this.track(entry);
      promise.then(
        (value) => {
          entry.finished = true;
          resolve(value);
        },
        (error: unknown) => {
          entry.finished = true;
          reject(error);
        },
      );
    });
  }

  /**
   * Rejects, with {@link StoreAbandonedError}, every call not yet answered that was sent to
   * `server` (any server when undefined): its node's circuit breaker opened, so they are
   * decided by the failure policy now rather than each at its own deadline.
   */
  failSent(server: string | undefined): void {
    const queue = this.#queue;
    let error: Error | undefined;
    for (let i = this.#head; i < queue.length; i++) {
      const entry = queue[i]!;
      if (entry.finished || entry.server === undefined) continue;
      if (server !== undefined && entry.server !== server) continue;
      error ??= new StoreAbandonedError('its Redis node');
      entry.finished = true;
      entry.reject(error);
    }
  }

  #arm(delayMs: number): void {
    this.#timer = unrefTimeout(this.#fire, Math.max(0, Math.ceil(delayMs)));
  }

  /**
   * The timer: the rejections wait for the next check phase, after the I/O poll, so a reply
   * already in the socket (the event loop was blocked, the timer is late) finishes first.
   */
  readonly #fire = (): void => {
    nextTurn(this.#expireNow);
  };

  readonly #expireNow = (): void => {
    this.#expire();
  };

  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const entry = queue[this.#head]!;
      if (!entry.finished) {
        if (entry.deadline > now) break;
        entry.finished = true;
        entry.reject(new StoreTimeoutError(this.timeoutMs));
      }
      this.#head++;
    }
    if (this.#head === queue.length) {
      this.#queue = [];
      this.#head = 0;
      return;
    }
    if (this.#head > 1024) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
    this.#arm(this.#queue[this.#head]!.deadline - now);
  }
}
