import { type AimdState, aimdUpdate } from './aimd.js';
import { type Gradient2State, gradient2Update } from './gradient2.js';
import type { AdaptiveConfig, AdaptivePriority } from './options.js';
import type { WindowSample } from './sample.js';

/** Share of the limit each class may fill when a `priority` function is given. */
const SHARE: Record<AdaptivePriority, number> = { critical: 1, default: 0.9, sheddable: 0.75 };

/**
 * One process's adaptive concurrency limit (`Limit.adaptive`): requests in flight, the
 * current sampling window and the algorithm's state ({@link gradient2Update} or
 * {@link aimdUpdate}). Time is always passed in (ms, any monotonic origin), so a fake clock
 * drives it in tests and in the simulation.
 *
 * @example
 * const a = new AdaptiveConcurrency(parseAdaptiveOptions({ min: 2, max: 100 }));
 * if (a.tryAcquire(now)) { … a.release(now, later); }
 */
export class AdaptiveConcurrency {
  /** The parsed options. */
  readonly config: AdaptiveConfig;
  #gradient: Gradient2State;
  #aimd: AimdState;
  #inFlight = 0;
  #windowStart: number | undefined;
  #count = 0;
  #sum = 0;
  #min = Number.POSITIVE_INFINITY;
  #maxInFlight = 0;
  #dropped = false;
  #loopDelay: (() => number) | false | undefined;

  constructor(config: AdaptiveConfig) {
    this.config = config;
    this.#loopDelay = config.loopDelay;
    this.#gradient = { limit: config.initial, baselineMs: undefined };
    this.#aimd = { limit: config.initial };
  }

  /** The current limit: requests in flight at once (an integer in `[min, max]`). */
  get limit(): number {
    const raw = this.config.algorithm === 'aimd' ? this.#aimd.limit : this.#gradient.limit;
    return Math.max(this.config.min, Math.floor(raw));
  }

  /** Requests in flight now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Gradient2's baseline latency in ms (`undefined` before the first sample, or with AIMD). */
  get baselineMs(): number | undefined {
    return this.config.algorithm === 'aimd' ? undefined : this.#gradient.baselineMs;
  }

  /** Whether no `loopDelay` was given (nor `false`): a Node adapter may inject one. */
  get wantsLoopDelay(): boolean {
    return this.#loopDelay === undefined;
  }

  /** Sets the event-loop delay source (ms) when none was given ({@link wantsLoopDelay}). */
  useLoopDelay(source: () => number): void {
    if (this.#loopDelay === undefined) this.#loopDelay = source;
  }

  /** How many requests of `priority` may be in flight (all of the limit without a `priority` option). */
  capacityFor(priority: AdaptivePriority = 'default'): number {
    const limit = this.limit;
    if (this.config.priority === undefined) return limit;
    return Math.max(1, Math.floor(limit * SHARE[priority]));
  }

  /**
   * Takes a slot for a request of class `priority` at `nowMs` when one is free: `true`, and
   * the caller must {@link release} it; `false`: shed (503).
   */
  tryAcquire(nowMs: number, priority: AdaptivePriority = 'default'): boolean {
    this.#tick(nowMs);
    if (this.#inFlight >= this.capacityFor(priority)) return false;
    this.#inFlight++;
    if (this.#inFlight > this.#maxInFlight) this.#maxInFlight = this.#inFlight;
    return true;
  }

  /**
   * Gives back the slot a request took at `startMs`, which ended at `nowMs`; its latency is
   * a sample of the current window. `dropped`: it failed from overload (AIMD backs off).
   */
  release(startMs: number, nowMs: number, dropped = false): void {
    if (this.#inFlight > 0) this.#inFlight--;
    const rtt = Math.max(0, nowMs - startMs);
    this.#count++;
    this.#sum += rtt;
    if (rtt < this.#min) this.#min = rtt;
    if (dropped) this.#dropped = true;
    this.#tick(nowMs);
  }

  /** Closes the window when it is due and feeds it to the algorithm. */
  #tick(nowMs: number): void {
    const start = this.#windowStart;
    if (start === undefined) {
      this.#windowStart = nowMs;
      this.#maxInFlight = this.#inFlight;
      return;
    }
    const elapsed = nowMs - start;
    const { windowMs, minSamples } = this.config;
    if (elapsed < windowMs) return;
    if (this.#count < minSamples && elapsed < 10 * windowMs) return;
    const loopDelay = this.#loopDelay;
    const delay = this.#count > 0 && typeof loopDelay === 'function' ? loopDelay() : 0;
    const sample: WindowSample = {
      count: this.#count,
      rttMs: this.#count > 0 ? this.#sum / this.#count + Math.max(0, delay) : 0,
      minRttMs: this.#min,
      maxInFlight: this.#maxInFlight,
      dropped: this.#dropped,
    };
    const c = this.config;
    if (c.algorithm === 'aimd') this.#aimd = aimdUpdate(c, this.#aimd, sample);
    else this.#gradient = gradient2Update(c, this.#gradient, sample);
    this.#windowStart = nowMs;
    this.#count = 0;
    this.#sum = 0;
    this.#min = Number.POSITIVE_INFINITY;
    this.#maxInFlight = this.#inFlight;
    this.#dropped = false;
  }
}
