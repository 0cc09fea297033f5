import type { Decision } from '../../algorithms/decision.js';
import { chargeTimeOf, type Store, type StoreReservation } from '../../stores/store.js';
import type { QueueConfig } from '../options/queue-options.js';
import type { Charge } from './charge.js';

/**
 * `mode: 'queue'` for one HTTP limiter in this process: books a request's future slot in
 * one store call (`Store.reserve`), holds the request until its slot, and counts the
 * requests waiting (`maxQueued`). A request whose wait would pass `maxWait`, or that finds
 * the queue full (then booked only if it conforms now), gets the store's denial, whose
 * `retryAfterMs` is its wait: the 429 answer with `Retry-After` rounded up. A request whose
 * client goes away (`gone` aborts) while waiting gives its slot back exactly (`Store.refund`
 * of the same cost) and is answered with a denial (nothing is served for it).
 */
export class HttpQueue {
  readonly config: QueueConfig;
  /** Requests waiting for their slot now. */
  waiting = 0;
  /** The limiter's clock (option `clock`): the time a give-back is decided at. */
  readonly #clock: () => number;

  constructor(config: QueueConfig, clock: () => number) {
    this.config = config;
    this.#clock = clock;
  }

  /**
   * Books `charge` with `cost` at `now` and waits for its slot; `undefined` when the store
   * cannot book (no `reserve`): the caller decides as in `'enforce'`.
   */
  decide(
    store: Store,
    charge: Charge,
    cost: number,
    now: number,
    gone: AbortSignal | undefined,
  ): Promise<Decision> | undefined {
    const { keySpace, subject, algorithm } = charge;
    const target = keySpace.store ?? store;
    const key = keySpace.store !== undefined ? subject : keySpace.prefix + subject;
    if (typeof target.reserve !== 'function' || typeof target.refund !== 'function') {
      return undefined;
    }
    const full = this.waiting >= this.config.maxQueued;
    const maxWait = full ? 0 : this.config.maxWaitMs;
    let booked: StoreReservation | Promise<StoreReservation>;
    try {
      booked = target.reserve(key, algorithm, cost, now, maxWait);
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve(booked).then(({ decision, delayMs }) => {
      if (!decision.allowed || delayMs === 0) return decision;
      const giveBack = () =>
        target.refund!(key, algorithm, cost, this.#clock(), chargeTimeOf(decision) ?? now);
      return this.#wait(decision, delayMs, gone, giveBack);
    });
  }

  #wait(
    decision: Decision,
    delayMs: number,
    gone: AbortSignal | undefined,
    giveBack: () => unknown,
  ): Promise<Decision> {
    this.waiting++;
    return new Promise<Decision>((resolve) => {
      const until = performance.now() + delayMs;
      const onGone = (): void => {
        clearTimeout(timer);
        this.waiting--;
        void Promise.resolve()
          .then(giveBack)
          .catch(() => undefined);
        const left = Math.max(0, until - performance.now());
        resolve({ ...decision, allowed: false, remaining: 0, retryAfterMs: left });
      };
      const timer = setTimeout(() => {
        gone?.removeEventListener('abort', onGone);
        this.waiting--;
        resolve(decision);
      }, Math.ceil(delayMs));
      if (gone?.aborted === true) onGone();
      else gone?.addEventListener('abort', onGone, { once: true });
    });
  }
}
