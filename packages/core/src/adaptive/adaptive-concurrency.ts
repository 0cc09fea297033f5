import { type AimdState, aimdUpdate } from './aimd.js';
import { type Gradient2State, gradient2Update } from './gradient2.js';
import type { AdaptiveConfig, AdaptivePriority } from './options.js';
import type { WindowSample } from './sample.js';

/**
 * The queue rule's memory of idleness, in windows: the idle share rises toward a new, higher
 * share over about this many windows, and falls to a lower one within about one. A loop
 * idle for under {@link IDLE_SHARE} of its recent time is overloaded: an idle gap in it (a
 * client that stalled, then sent its backlog at once) does not end the standing queue, and
 * a loop that becomes busy is taken for busy at once.
 */
const IDLE_MEMORY_WINDOWS = 10;
/** Below this share of idle time, a gap in the load does not end the standing queue. */
const IDLE_SHARE = 0.1;

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
  /** Requests estimated waiting in the event loop, from the last window (see {@link queued}). */
  #queued = 0;
  /** See {@link useTurnDelay}; `undefined`: the window's estimate (`#queued`) is used. */
  #turnDelay: (() => number) | undefined;
  /** The time one request takes, ms, as last measured (0: not yet). */
  #serviceMs = 0;
  /** When turns began to keep work queued past the target, the loop not idle since. */
  #aboveSince: number | undefined;
  /** When a request last reached the limiter or ended (ms). */
  #lastEventMs = Number.NEGATIVE_INFINITY;
  /** See {@link useLoopIdle}. */
  #loopIdle: (() => number) | undefined;
  /** The loop's idle time (ms, from {@link #loopIdle}) at the last turn's start. */
  #idleSeen = 0;
  /** When the last turn began (ms). */
  #turnMs: number | undefined;
  /**
   * The share of recent time the loop was idle, a moving average over about
   * `IDLE_MEMORY_WINDOWS` windows (1: an idle loop, where a new process starts).
   */
  #idleShare = 1;

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

  /**
   * Requests estimated to wait in the event loop before any handler sees them, from the last
   * window: its event-loop delay over the time a request takes (Little's law: a loop
   * delayed by d ms serving requests of s ms each has about d / s of them queued). On a
   * CPU-bound server about one request is in flight at a time however long the queue, so
   * this is what the limit counts beside {@link inFlight}: queued work the latency samples
   * cannot see (the delay happens before a request reaches the limiter). 0 without a
   * `loopDelay` source (fetch runtimes) or before the first sample.
   */
  get queued(): number {
    return this.#queued;
  }

  /** Whether no `loopDelay` was given (nor `false`): a Node adapter may inject one. */
  get wantsLoopDelay(): boolean {
    return this.#loopDelay === undefined;
  }

  /** Sets the event-loop delay source (ms) when none was given ({@link wantsLoopDelay}). */
  useLoopDelay(source: () => number): void {
    if (this.#loopDelay === undefined) this.#loopDelay = source;
  }

  /**
   * Sets the source of the **turn delay**: ms the event loop's current turn has run before
   * this request reached the limiter (the work queued ahead of it in the turn). Asked on each
   * request, it is the queue's length now (over a request's time), where the window's
   * event-loop delay is a mean from the last window; with it, that window estimate is not
   * used. The Node adapters set it (a `setImmediate` marks each turn's end); a test may.
   */
  useTurnDelay(source: () => number): void {
    this.#turnDelay ??= source;
  }

  /**
   * Sets the source of the event loop's idle time: ms it has waited for I/O with nothing to
   * do, since any fixed origin (Node: `performance.eventLoopUtilization().idle`). With it,
   * the queue rule's "the loop went idle" is read from it, so a process the OS did not run
   * for a while (a busy machine, a CPU quota) is not taken for an idle loop; without it,
   * from a gap between requests. The Node adapters set it; a test may.
   */
  useLoopIdle(source: () => number): void {
    this.#loopIdle ??= source;
    this.#idleSeen = source();
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
    const turn = this.#turnDelay;
    let queued = this.#queued;
    if (turn !== undefined) {
      const delay = turn();
      const shed = this.#sojourn(nowMs, delay);
      this.#lastEventMs = nowMs;
      if (shed) return false;
      queued = this.#serviceMs > 0 ? Math.floor(delay / this.#serviceMs) : 0;
    } else if (queued > 0) {
      // This request has left the loop's queue: the window's estimate follows it down until
      // the next window measures the loop again (shedding drains the queue fast).
      this.#queued--;
    }
    const busy = this.#inFlight + queued;
    if (busy >= this.capacityFor(priority)) return false;
    this.#inFlight++;
    if (busy + 1 > this.#maxInFlight) this.#maxInFlight = busy + 1;
    return true;
  }

  /**
   * Whether a request with `delay` ms of the loop's turn ahead of it is shed for the queue in
   * front of the loop, whatever the limit (CoDel's rule, on the turn delay): the target is
   * one service time of work ahead, and the queue counts as standing once requests have had
   * more than that ahead of them for a window (`window` ms) with the loop never idle in
   * between. A loop that idled a target's time between two turns has drained it (a burst
   * served, then idle): idle time from {@link useLoopIdle}, else the time with no request
   * reaching the limiter or ending; unless the loop has been idle for under a tenth of the
   * last ten windows: that is overload whose arrivals paused (a backlog then arrives at
   * once, and serving it whole would keep its last requests waiting for the whole backlog).
   * While it stands, a request past the target is shed: admitted ones wait about one
   * service time, however high the limit.
   */
  #sojourn(nowMs: number, delay: number): boolean {
    const target = this.#serviceMs;
    if (target <= 0) return false;
    if (delay === 0) {
      // A turn's first request: did the loop go idle since the last turn?
      const idle = this.#loopIdle;
      let idled: number;
      if (idle === undefined) idled = nowMs - this.#lastEventMs;
      else {
        const total = idle();
        idled = total - this.#idleSeen;
        this.#idleSeen = total;
      }
      const since = this.#turnMs === undefined ? 0 : nowMs - this.#turnMs;
      this.#turnMs = nowMs;
      if (since > 0) {
        // a moving average of the idle share, weighted by time: slow up, fast down
        const share = Math.min(1, Math.max(0, idled) / since);
        const windows = share > this.#idleShare ? IDLE_MEMORY_WINDOWS : 1;
        const weight = 1 - Math.exp(-since / (windows * this.config.windowMs));
        this.#idleShare += weight * (share - this.#idleShare);
      }
      if (idled >= target && this.#idleShare >= IDLE_SHARE) this.#aboveSince = undefined;
    }
    if (delay < target) return false;
    this.#aboveSince ??= nowMs;
    return nowMs - this.#aboveSince >= this.config.windowMs;
  }

  /**
   * Gives back the slot a request took at `startMs`, which ended at `nowMs`; its latency is
   * a sample of the current window. `dropped`: it failed from overload (AIMD backs off).
   */
  release(startMs: number, nowMs: number, dropped = false): void {
    if (this.#inFlight > 0) this.#inFlight--;
    this.#lastEventMs = nowMs;
    const rtt = Math.max(0, nowMs - startMs);
    // Until the first window closes, the first request's time stands for the service time.
    if (this.#serviceMs === 0) this.#serviceMs = rtt;
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
    // A window short of samples waits (up to 10 windows), unless requests are being shed for
    // a queue in the loop: that estimate must follow the loop as it drains.
    if (this.#count < minSamples && elapsed < 10 * windowMs && this.#queued === 0) return;
    const loopDelay = this.#loopDelay;
    const delay = typeof loopDelay === 'function' ? Math.max(0, loopDelay()) : 0;
    // With the turn delay, the queue in front of the loop is bounded per request (#sojourn):
    // the latency samples are left to time in flight, which the limit governs.
    const queueing = this.#turnDelay === undefined ? delay : 0;
    const sample: WindowSample = {
      count: this.#count,
      rttMs: this.#count > 0 ? this.#sum / this.#count + queueing : 0,
      minRttMs: this.#min,
      maxInFlight: this.#maxInFlight,
      dropped: this.#dropped,
    };
    const c = this.config;
    if (c.algorithm === 'aimd') this.#aimd = aimdUpdate(c, this.#aimd, sample);
    else this.#gradient = gradient2Update(c, this.#gradient, sample);
    // The time one request takes: the baseline (Gradient2), else the fastest seen lately.
    if (this.#count > 0) this.#serviceMs = this.baselineMs ?? this.#min;
    const serviceMs = this.#serviceMs;
    this.#queued = serviceMs > 0 ? Math.floor(delay / serviceMs) : 0;
    this.#windowStart = nowMs;
    this.#count = 0;
    this.#sum = 0;
    this.#min = Number.POSITIVE_INFINITY;
    this.#maxInFlight = this.#inFlight + this.#queued;
    this.#dropped = false;
  }
}
