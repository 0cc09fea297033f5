import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames } from '../common/known-options.js';

/**
 * Where a {@link CircuitBreaker} stands:
 *
 * - `'closed'`: the store is healthy; every call goes to it.
 * - `'open'`: the store failed less than `cooldownMs` ago; no call goes to it.
 * - `'half-open'`: the cooldown is over; one call at a time (the probe) goes to it, the
 *   others do not. The probe's success closes the breaker, its failure opens it again.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * What {@link CircuitBreaker.tryAcquire} grants: `'call'` (closed: call the store),
 * `'probe'` (half-open: call the store as the one probe, and report its outcome with
 * `probe = true`) or `'reject'` (do not call the store: decide without it).
 */
export type BreakerTicket = 'call' | 'probe' | 'reject';

/** Options of a {@link CircuitBreaker}. */
export interface CircuitBreakerOptions {
  /**
   * How long, in **ms**, the breaker stays open after a failure before it lets one probe
   * call through. A finite number >= 0; default {@link DEFAULT_COOLDOWN_MS} (1000 ms).
   */
  cooldownMs?: number;
  /**
   * A monotonic clock in **ms** (any origin). Default `performance.now`. Tests inject a
   * fake one to drive the state machine without sleeping.
   */
  clock?: () => number;
}

/** The default {@link CircuitBreakerOptions.cooldownMs}: 1000 ms. */
export const DEFAULT_COOLDOWN_MS = 1000;

/**
 * Checks {@link CircuitBreakerOptions} (undefined = every default).
 *
 * @throws {@link SluiceConfigError} naming `breaker`, `breaker.cooldownMs`, `breaker.clock`
 *   or an unknown option name.
 */
export function checkBreakerOptions(options: unknown): Required<CircuitBreakerOptions> {
  if (options === undefined) return { cooldownMs: DEFAULT_COOLDOWN_MS, clock: performanceNow };
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('breaker', options, 'an object { cooldownMs?, clock? }');
  }
  checkOptionNames(options, ['cooldownMs', 'clock'], 'the breaker option');
  const { cooldownMs = DEFAULT_COOLDOWN_MS, clock = performanceNow } =
    options as CircuitBreakerOptions;
  if (typeof cooldownMs !== 'number' || !Number.isFinite(cooldownMs) || cooldownMs < 0) {
    throw new SluiceConfigError('breaker.cooldownMs', cooldownMs, 'a finite number of ms >= 0');
  }
  if (typeof clock !== 'function') {
    throw new SluiceConfigError('breaker.clock', clock, 'a function returning ms');
  }
  return { cooldownMs, clock };
}

const performanceNow = () => performance.now();

/**
 * A circuit breaker for one store (or one failure domain of a store, e.g. one Cluster
 * node): after a failure it stops calls for `cooldownMs`, then lets one probe call through
 * at a time until one succeeds. One failure opens it: a store that timed out once is likely
 * to time out for the next caller too, and waiting `timeoutMs` is what the breaker saves.
 *
 * The closed state costs one property read per call ({@link CircuitBreaker.state}); the
 * clock is read only while the breaker is open. Outcomes of calls that were not the probe
 * are ignored unless the breaker is closed (a late failure of a call made before the
 * breaker opened neither reopens nor extends it, a late success does not close it).
 *
 * @example
 * ```ts
 * const breaker = new CircuitBreaker({ cooldownMs: 500 });
 * const ticket = breaker.tryAcquire();
 * if (ticket === 'reject') return fallback();
 * try {
 *   const value = await callTheStore();
 *   breaker.onSuccess(ticket === 'probe');
 *   return value;
 * } catch (error) {
 *   breaker.onFailure(ticket === 'probe');
 *   return fallback();
 * }
 * ```
 *
 * @throws {@link SluiceConfigError} at construction for an invalid option.
 */
export class CircuitBreaker {
  /** The current state; `'closed'` on the hot path (read it before {@link tryAcquire}). */
  state: BreakerState = 'closed';
  /** How long, in **ms**, the breaker stays open before it lets a probe through. */
  readonly cooldownMs: number;
  readonly #clock: () => number;
  /** When the breaker last opened (clock ms). */
  #openedAt = 0;

  constructor(options?: CircuitBreakerOptions) {
    const { cooldownMs, clock } = checkBreakerOptions(options);
    this.cooldownMs = cooldownMs;
    this.#clock = clock;
  }

  /**
   * Asks to call the store. Closed: `'call'`. Open: `'reject'` until `cooldownMs` have passed
   * since it opened, then `'probe'` (the breaker is half-open from then). Half-open:
   * `'reject'`, since the probe is in flight.
   */
  tryAcquire(): BreakerTicket {
    if (this.state === 'closed') return 'call';
    if (this.state === 'open' && this.#clock() - this.#openedAt >= this.cooldownMs) {
      this.state = 'half-open';
      return 'probe';
    }
    return 'reject';
  }

  /**
   * Reports a call's success. `probe`: whether it was the probe.
   *
   * @returns true when this closes the breaker (the probe answered).
   */
  onSuccess(probe: boolean): boolean {
    if (!probe || this.state !== 'half-open') return false;
    this.state = 'closed';
    return true;
  }

  /**
   * Reports a call's failure (an error or a timeout). `probe`: whether it was the probe.
   *
   * @returns true when this opens a closed breaker (an outage starts here); a failed probe
   *   opens a half-open one again for another `cooldownMs` and returns false.
   */
  onFailure(probe: boolean): boolean {
    if (this.state === 'closed') {
      this.#open();
      return true;
    }
    if (probe && this.state === 'half-open') this.#open();
    return false;
  }

  #open(): void {
    this.state = 'open';
    this.#openedAt = this.#clock();
  }
}
