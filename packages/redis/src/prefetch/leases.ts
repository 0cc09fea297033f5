import { type FetchPart, giveBackPart, type Lease } from './lease.js';

/**
 * The leases of one prefetch: the live one of each key, and every lease in the order it
 * was made (their ends are nearly in order: the sweep's queue). A lease ends when its end
 * comes (on the caller's clock, or `ttl` of real time by the timer), when a later fetch of
 * its key replaces it, or on {@link Leases.close}; what it still holds is then given back
 * (`giveBack`, in the next script call).
 */
export class Leases {
  /** Live leases by store key. */
  readonly #byKey = new Map<string, Lease>();
  #queue: Lease[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #ttlMs: number;
  readonly #giveBack: (part: FetchPart) => void;
  /** The latest `nowMs` a caller gave: the time the timer's sweep uses. */
  lastNow = 0;
  /**
   * Whether a timer ends leases after `ttl` of real time (default). Tests that drive time
   * with a fake clock turn it off and call {@link Leases.sweep}.
   */
  realTime = true;

  /** @param giveBack - sends a give-back of what an ended lease held. */
  constructor(ttlMs: number, giveBack: (part: FetchPart) => void) {
    this.#ttlMs = ttlMs;
    this.#giveBack = giveBack;
  }

  /** The key's live lease, if any. */
  get(key: string): Lease | undefined {
    return this.#byKey.get(key);
  }

  /** Units of `key` held now (0 without a live lease). */
  held(key: string): number {
    const lease = this.#byKey.get(key);
    return lease === undefined || lease.done ? 0 : lease.held;
  }

  /** Forgets the key's lease without giving back (the key is being deleted). */
  forget(key: string): void {
    const lease = this.#byKey.get(key);
    if (lease === undefined) return;
    lease.done = true;
    lease.held = 0;
    this.#byKey.delete(key);
  }

  /** Takes `lease` off its key (a fetch replaces it and gives it back itself). */
  detach(lease: Lease): void {
    if (this.#byKey.get(lease.key) === lease) this.#byKey.delete(lease.key);
  }

  /** Makes `lease` its key's (ending the one before); once closed, ends it at once. */
  install(lease: Lease): void {
    if (this.#closed) {
      this.end(lease);
      return;
    }
    const old = this.#byKey.get(lease.key);
    if (old !== undefined) this.end(old);
    this.#byKey.set(lease.key, lease);
    this.#queue.push(lease);
    if (this.#timer === undefined && this.realTime) this.#arm(this.#ttlMs);
  }

  /** Ends `lease`: gives back what it holds (in the next script call). */
  end(lease: Lease): void {
    this.detach(lease);
    if (lease.done) return;
    const part = giveBackPart(lease);
    if (part.give > 0) this.#giveBack(part);
  }

  /**
   * Ends every lease whose end has come: on the caller's clock (`nowMs`), or, with
   * `perfNow`, by the timer (`ttl` of real time after its fetch).
   */
  sweep(nowMs: number, perfNow = -1): void {
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const lease = queue[this.#head]!;
      if (!lease.done && lease.endsMs > nowMs && lease.deadline > perfNow) break;
      this.end(lease);
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

  /** {@link Leases.sweep} when the oldest lease has ended by `nowMs`. */
  sweepEnded(nowMs: number): void {
    const head = this.#queue[this.#head];
    if (head !== undefined && (head.done || head.endsMs <= nowMs)) this.sweep(nowMs);
  }

  /** Ends every lease, and every lease installed from now on. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const lease of this.#queue.slice(this.#head)) this.end(lease);
    this.#queue = [];
    this.#head = 0;
  }

  #arm(delayMs: number): void {
    this.#timer = setTimeout(this.#onTimer, Math.max(1, Math.ceil(delayMs)));
    this.#timer.unref();
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    const perfNow = performance.now();
    this.sweep(this.lastNow, perfNow);
    const head = this.#queue[this.#head];
    if (head !== undefined) this.#arm(head.deadline - perfNow);
  };
}
