/** One request waiting: woken at `at` (ms on the clock), or by a response if `onResponse`. */
interface Waiter {
  at: number;
  onResponse: boolean;
  resolve: () => void;
}

/** The reason a superseded timer is cancelled with: a constant (no DOMException per cancel). */
const SUPERSEDED = Object.freeze({ superseded: true });

/** setTimeout's largest delay (2^31 - 1 ms): a later wake-up is re-armed on the way. */
const MAX_SLEEP = 2_147_483_647;

/**
 * The requests of one origin that wait: one timer for all of them (at the earliest wake-up),
 * and a wake-up of those waiting for a response when one arrives.
 * perf: 1,000 requests waiting on one policy share one timer, not 1,000.
 */
export class Waiters {
  private readonly waiting = new Set<Waiter>();
  private timerAt = Number.POSITIVE_INFINITY;
  private timer: AbortController | undefined;

  constructor(
    private readonly clock: () => number,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ) {}

  /**
   * Resolves at `at` at the latest (sooner on a response when `onResponse`); rejects with
   * `signal.reason` when it aborts.
   */
  wait(at: number, onResponse: boolean, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(waiter);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        at,
        onResponse,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.waiting.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (at < this.timerAt) this.arm(at);
    });
  }

  /** An response arrived: wakes the requests waiting for one. */
  responded(): void {
    for (const w of this.waiting) {
      if (w.onResponse) {
        this.waiting.delete(w);
        w.resolve();
      }
    }
  }

  private arm(at: number): void {
    this.timer?.abort(SUPERSEDED);
    const timer = new AbortController();
    this.timer = timer;
    this.timerAt = at;
    const ms = Math.min(Math.max(0, at - this.clock()), MAX_SLEEP);
    this.sleep(ms, timer.signal).then(
      () => {
        if (this.timer === timer) this.fire();
      },
      () => {
        // Superseded by an earlier wake-up.
      },
    );
  }

  /** The timer fired: wakes the requests due, re-arms for the next. */
  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock();
    let next = Number.POSITIVE_INFINITY;
    for (const w of this.waiting) {
      if (w.at <= now) {
        this.waiting.delete(w);
        w.resolve();
      } else if (w.at < next) {
        next = w.at;
      }
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  }
}
