import type { Algorithm, AlgorithmKind, State, StepResult } from './algorithm.js';

/**
 * What the window algorithms (`fixedWindow`, `slidingWindow`, `slidingLog`) share: a
 * quota of units per `windowMs` (`limit`), and Lua twin parameters `[quota, windowMs]`.
 */
export abstract class WindowAlgorithm implements Algorithm {
  abstract readonly kind: AlgorithmKind;
  /** Units admitted per window; reported as `Decision.limit`. */
  readonly limit: number;
  /** The window in whole **ms**. */
  readonly windowMs: number;
  readonly params: readonly number[];
  readonly description: string;

  /** @param factory - the factory's name, for `description` (e.g. `'fixedWindow'`). */
  constructor(factory: string, quota: number, windowMs: number) {
    this.limit = quota;
    this.windowMs = windowMs;
    this.params = [quota, windowMs];
    this.description = `${factory}(${quota} per ${windowMs} ms)`;
  }

  abstract step(state: State | undefined, nowMs: number, cost: number): StepResult;
}
