import type { Algorithm, RefundResult, StepResult } from '../algorithms/algorithm.js';
import { type Decision, decide } from '../algorithms/decision.js';
import type { Store } from '../stores/store.js';
import type { AdaptiveConcurrency } from './adaptive-concurrency.js';
import { useNodeLoopDelay } from './loop-delay.js';
import type { AdaptivePriority } from './options.js';

let nextId = 0;

/**
 * The {@link Algorithm} of a `Limit.adaptive`: its decisions are made in this process by
 * its {@link AdaptiveConcurrency}, through {@link AdaptiveGate}, never in a store (the
 * limit is per process). `step` and `refund` exist for the `Algorithm` contract and say so:
 * a store that is handed one throws.
 */
export class AdaptiveAlgorithm implements Algorithm {
  readonly kind = 'adaptive' as const;
  /** Marks a limit on requests in flight: given back when the request ends, `Retry-After: 1`. */
  readonly concurrent = true;
  readonly params: readonly number[] = [];
  readonly description: string;
  /** Unique per `Limit.adaptive` call: two adaptive limits never share a plan entry. */
  readonly id: number;
  /** The process's controller: the current `limit`, `inFlight`, `baselineMs`. */
  readonly controller: AdaptiveConcurrency;
  /** The in-process store its charges go to. */
  readonly gate: AdaptiveGate;

  constructor(controller: AdaptiveConcurrency) {
    this.controller = controller;
    this.id = nextId++;
    const c = controller.config;
    this.description = `adaptive(${c.algorithm}, ${c.min}..${c.max} in flight)`;
    this.gate = new AdaptiveGate(controller);
  }

  /** The current limit (requests in flight), as `Decision.limit` reports it. */
  get limit(): number {
    return this.controller.limit;
  }

  /**
   * Gives the controller this Node process's event-loop and turn delay when its `loopDelay`
   * option asks for them (loop-delay.ts): called when a limiter plans the limit, so a bundle
   * without `Limit.adaptive` leaves the Node glue out.
   */
  useNodeLoopDelay(): void {
    useNodeLoopDelay(this);
  }

  step(): StepResult {
    throw new TypeError('sluice: an adaptive limit is decided in process, not in a store');
  }

  refund(): RefundResult {
    throw new TypeError('sluice: an adaptive limit is decided in process, not in a store');
  }
}

const PRIORITIES: readonly string[] = ['critical', 'default', 'sheddable'];

/**
 * The per-process "store" of an adaptive limit: `consume(priority)` takes a slot of the
 * controller, `refund` gives it back and samples the request's latency (`nowMs − atMs`).
 * Keys are the request's priority class. Synchronous; never fails.
 */
export class AdaptiveGate implements Store {
  readonly #c: AdaptiveConcurrency;

  constructor(controller: AdaptiveConcurrency) {
    this.#c = controller;
  }

  consume(key: string, _algorithm: Algorithm, cost: number, nowMs: number): Decision {
    const c = this.#c;
    const priority = (PRIORITIES.includes(key) ? key : 'default') as AdaptivePriority;
    if (cost === 0) {
      const limit = c.limit;
      const free = c.capacityFor(priority) - c.inFlight - c.queued;
      return decide(free > 0, limit, Math.max(0, free), free > 0 ? 0 : 1000, 0, 0);
    }
    const allowed = c.tryAcquire(nowMs, priority);
    const limit = c.limit;
    const remaining = Math.max(0, c.capacityFor(priority) - c.inFlight - c.queued);
    // Denied: a slot frees when any request ends; HTTP answers Retry-After: 1.
    return decide(allowed, limit, remaining, allowed ? 0 : 1000, 0, cost);
  }

  refund(_key: string, _algorithm: Algorithm, cost: number, nowMs: number, atMs: number): Decision {
    if (cost > 0) this.#c.release(atMs, nowMs);
    const limit = this.#c.limit;
    return decide(true, limit, Math.max(0, limit - this.#c.inFlight), 0, 0, 0);
  }

  reset(): void {
    // Nothing is kept per key.
  }
}
