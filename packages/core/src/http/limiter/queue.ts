import type { Algorithm } from '../../algorithms/algorithm.js';
import type { Decision } from '../../algorithms/decision.js';
import { SluiceConfigError } from '../../common/errors.js';
import {
  chargeTimeOf,
  type Store,
  type StoreRequest,
  type StoreReservation,
} from '../../stores/store.js';
import type { QueueConfig } from '../options/queue-options.js';
import type { Charge } from './charge.js';

/**
 * `mode: 'queue'` for one HTTP limiter in this process: books a request's future slot in
 * one store call (`Store.reserve`), holds the request until its slot, and counts the
 * requests waiting (`maxQueued`), each from before its store call: concurrent arrivals on
 * an asynchronous store are bounded too. A request whose wait would pass `maxWait`, or that finds
 * the queue full (then booked only if it conforms now), gets the store's denial, whose
 * `retryAfterMs` is its wait: the 429 answer with `Retry-After` rounded up. A request whose
 * client goes away (`gone` aborts) while waiting gives its slot back exactly (`Store.refund`
 * of the same cost) and is answered with a denial (nothing is served for it). A request under
 * several limits books all its slots in one all-or-nothing store call (`Store.reserveAll`),
 * waits for the latest, and gives back every part when its client goes away.
 */
export class HttpQueue {
  readonly config: QueueConfig;
  /** Requests waiting for their slot now, and those whose booking is still at the store. */
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
    const held = this.#hold();
    let booked: StoreReservation | Promise<StoreReservation>;
    try {
      booked = target.reserve(key, algorithm, cost, now, held ? this.config.maxWaitMs : 0);
    } catch (error) {
      this.#release(held);
      return Promise.reject(error);
    }
    return Promise.resolve(booked).then(
      ({ decision, delayMs }) => {
        if (!decision.allowed || delayMs === 0) {
          this.#release(held);
          return decision;
        }
        const giveBack = () =>
          target.refund!(key, algorithm, cost, this.#clock(), chargeTimeOf(decision) ?? now);
        return this.#wait(delayMs, gone, giveBack, held).then((left) =>
          left === undefined ? decision : gaveUp(decision, left),
        );
      },
      (error: unknown) => {
        this.#release(held);
        throw error;
      },
    );
  }

  /**
   * {@link HttpQueue.decide} for a request under several limits: books every charge's slot
   * in one all-or-nothing `Store.reserveAll` call and waits for the latest slot; a client
   * that goes away gives back every part. The decisions come back in `charges`' order.
   * @throws `TypeError` (as a rejection) when the store has no `reserveAll`.
   */
  decideAll(
    store: Store,
    charges: readonly Charge[],
    now: number,
    gone: AbortSignal | undefined,
  ): Promise<Decision[]> {
    if (typeof store.reserveAll !== 'function' || typeof store.refund !== 'function') {
      return Promise.reject(
        new TypeError('sluice: this store cannot queue a request under several limits'),
      );
    }
    const requests = charges.map(
      ({ keySpace, subject, algorithm, cost }): StoreRequest =>
        keySpace.store !== undefined
          ? { key: subject, prefix: keySpace.prefix, algorithm, cost }
          : { key: keySpace.prefix + subject, algorithm, cost },
    );
    const held = this.#hold();
    let booked: StoreReservation[] | Promise<StoreReservation[]>;
    try {
      booked = store.reserveAll(requests, now, held ? this.config.maxWaitMs : 0);
    } catch (error) {
      this.#release(held);
      return Promise.reject(error);
    }
    return Promise.resolve(booked).then(
      (parts) => {
        const decisions = parts.map((p) => p.decision);
        let delayMs = 0;
        for (const p of parts) if (p.delayMs > delayMs) delayMs = p.delayMs;
        if (delayMs === 0 || !decisions.every((d) => d.allowed)) {
          this.#release(held);
          return decisions;
        }
        const giveBack = () =>
          Promise.all(
            charges.map(({ keySpace, subject, algorithm, cost }, i) => {
              const at = chargeTimeOf(decisions[i]!) ?? now;
              const own = keySpace.store;
              return own !== undefined && typeof own.refund === 'function'
                ? own.refund(subject, algorithm, cost, this.#clock(), at)
                : store.refund!(keySpace.prefix + subject, algorithm, cost, this.#clock(), at);
            }),
          );
        return this.#wait(delayMs, gone, giveBack, held).then((left) =>
          left === undefined ? decisions : decisions.map((d) => gaveUp(d, left)),
        );
      },
      (error: unknown) => {
        this.#release(held);
        throw error;
      },
    );
  }

  /**
   * Counts a request against `maxQueued` from before its store call, so concurrent
   * arrivals on an asynchronous store cannot all be booked before the first reply: `true`
   * when it took a place (it may book a slot up to `maxWait` ahead), `false` when the queue
   * was full (it is booked only if it conforms now).
   */
  #hold(): boolean {
    if (this.waiting >= this.config.maxQueued) return false;
    this.waiting++;
    return true;
  }

  /** Gives back the place {@link HttpQueue.#hold} took: a denial, a zero wait, a failure. */
  #release(held: boolean): void {
    if (held) this.waiting--;
  }

  /**
   * Holds a booked request `delayMs`, counted in {@link HttpQueue.waiting} (its place taken
   * before the store call when `held`): resolves
   * `undefined` when its slot came, or the ms that were left when `gone` aborted first (then
   * `giveBack` has been started).
   */
  #wait(
    delayMs: number,
    gone: AbortSignal | undefined,
    giveBack: () => unknown,
    held: boolean,
  ): Promise<number | undefined> {
    if (!held) this.waiting++; // booked past a full queue (a store's rounding): still counted
    return new Promise<number | undefined>((resolve) => {
      const until = performance.now() + delayMs;
      const onGone = (): void => {
        clearTimeout(timer);
        this.waiting--;
        void Promise.resolve()
          .then(giveBack)
          .catch(() => undefined);
        resolve(Math.max(0, until - performance.now()));
      };
      // perf: one timer per waiting request, measured: 10,000 with distinct delays cost
      // ~0.4 µs each to set (Node keeps a list per duration in one binary heap), a tenth of
      // what parking a request costs in all (2 to 5 µs, bench:queue): a heap of our own saves
      // nothing measurable.
      const timer = setTimeout(() => {
        gone?.removeEventListener('abort', onGone);
        this.waiting--;
        resolve(undefined);
      }, Math.ceil(delayMs));
      if (gone?.aborted === true) onGone();
      else gone?.addEventListener('abort', onGone, { once: true });
    });
  }
}

/** The denial answered to a request whose client went away `left` ms before its slot. */
function gaveUp(decision: Decision, left: number): Decision {
  return { ...decision, allowed: false, remaining: 0, retryAfterMs: left };
}

/**
 * `SluiceConfigError` naming `mode` unless `algorithm` (a limit of a `mode: 'queue'`
 * limiter) can book a future slot, saying why it cannot: never decided as `'enforce'` silently.
 */
export function checkQueueable(algorithm: Algorithm): void {
  if (typeof algorithm.reserve === 'function') return;
  const why =
    algorithm.concurrent === true
      ? 'a lease frees when a request ends, at no time a store can book: give it a limiter of its own'
      : 'a window has no future slot: use GCRA or a bucket';
  throw new SluiceConfigError('mode', 'queue', 'limits that can book a future slot', {
    hint: `${algorithm.description}: ${why}`,
  });
}

/**
 * `SluiceConfigError` naming `mode` unless `store` can book future slots: `reserve` and
 * `refund`, and `reserveAll` when a route may have several limits (`several`).
 */
export function checkQueueStore(store: Store, several: boolean): void {
  const can =
    typeof store.reserve === 'function' &&
    typeof store.refund === 'function' &&
    (!several || typeof store.reserveAll === 'function');
  if (can) return;
  throw new SluiceConfigError('mode', 'queue', 'a store that can book future slots', {
    hint: `it needs ${several ? 'reserveAll (several limits; not on a Redis Cluster), ' : ''}reserve and refund`,
  });
}
