import { type Timer, unrefTimeout } from '../runtime/timers.js';
import { type FetchPart, giveBackPart, type Holding } from './holding.js';

/**
 * The holdings of one prefetch: the live one of each key, and every holding in the order it
 * was made (their ends are nearly in order: the sweep's queue). A holding ends when its end
 * comes (on the caller's clock, or `ttl` of real time by the timer), when a later fetch of
 * its key replaces it, or on {@link Holdings.close}; what it still holds is then given back
 * (`giveBack`, in the next script call).
 */
export class Holdings {
  /** Live holdings by store key. */
  readonly #byKey = new Map<string, Holding>();
  #queue: Holding[] = [];
  #head = 0;
  #timer: Timer | undefined;
  #closed = false;
  readonly #ttlMs: number;
  readonly #giveBack: (part: FetchPart) => void;
  /** The latest `nowMs` a caller gave: the time the timer's sweep uses. */
  lastNow = 0;
  /**
   * Whether a timer ends holdings after `ttl` of real time (default). Tests that drive time
   * with a fake clock turn it off and call {@link Holdings.sweep}.
   */
  realTime = true;

  /** @param giveBack - sends a give-back of what an ended holding held. */
  constructor(ttlMs: number, giveBack: (part: FetchPart) => void) {
    this.#ttlMs = ttlMs;
    this.#giveBack = giveBack;
  }

  /** The key's live holding, if any. */
  get(key: string): Holding | undefined {
    return this.#byKey.get(key);
  }

  /** Units of `key` held now (0 without a live holding). */
  held(key: string): number {
    const holding = this.#byKey.get(key);
    return holding === undefined || holding.done ? 0 : holding.held;
  }

  /** Forgets the key's holding without giving back (the key is being deleted). */
  forget(key: string): void {
    const holding = this.#byKey.get(key);
    if (holding === undefined) return;
    holding.done = true;
    holding.held = 0;
    this.#byKey.delete(key);
  }

  /** Takes `holding` off its key (a fetch replaces it and gives it back itself). */
  detach(holding: Holding): void {
    if (this.#byKey.get(holding.key) === holding) this.#byKey.delete(holding.key);
  }

  /** Makes `holding` its key's (ending the one before); once closed, ends it at once. */
  install(holding: Holding): void {
    if (this.#closed) {
      this.end(holding);
      return;
    }
    const old = this.#byKey.get(holding.key);
    if (old !== undefined) this.end(old);
    this.#byKey.set(holding.key, holding);
    this.#queue.push(holding);
    if (this.#timer === undefined && this.realTime) this.#arm(this.#ttlMs);
  }

  /** Ends `holding`: gives back what it holds (in the next script call). */
  end(holding: Holding): void {
    this.detach(holding);
    if (holding.done) return;
    const part = giveBackPart(holding);
    if (part.give > 0) this.#giveBack(part);
  }

  /**
   * Ends every holding whose end has come: on the caller's clock (`nowMs`), or, with
   * `perfNow`, by the timer (`ttl` of real time after its fetch).
   */
  sweep(nowMs: number, perfNow = -1): void {
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const holding = queue[this.#head]!;
      if (!holding.done && holding.endsMs > nowMs && holding.deadline > perfNow) break;
      this.end(holding);
      this.#head++;
    }
    if (this.#head === queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
  }

  /** {@link Holdings.sweep} when the oldest holding has ended by `nowMs`. */
  sweepEnded(nowMs: number): void {
    const head = this.#queue[this.#head];
    if (head !== undefined && (head.done || head.endsMs <= nowMs)) this.sweep(nowMs);
  }

  /** Ends every holding, and every holding installed from now on. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const holding of this.#queue.slice(this.#head)) this.end(holding);
    this.#queue = [];
    this.#head = 0;
  }

  #arm(delayMs: number): void {
    this.#timer = unrefTimeout(this.#onTimer, Math.max(1, Math.ceil(delayMs)));
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    const perfNow = performance.now();
    this.sweep(this.lastNow, perfNow);
    const head = this.#queue[this.#head];
    if (head !== undefined) this.#arm(head.deadline - perfNow);
  };
}
