import { SluiceConfigError } from './errors.js';

/** `value` must be a finite number > 0; returns it. Throws {@link SluiceConfigError}. */
export function positiveNumber(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new SluiceConfigError(option, value, 'a finite number > 0');
  }
  return value;
}

/** `value` must be an integer >= `min`; returns it. Throws {@link SluiceConfigError}. */
export function integerAtLeast(option: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new SluiceConfigError(option, value, `an integer >= ${min}`);
  }
  return value;
}

/**
 * Checks a per-call cost: a non-negative safe integer (0 = peek).
 * Throws `TypeError` (not a config error: this is a programming error at the call site).
 */
export function checkCost(cost: unknown): number {
  if (typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost < 0) {
    throw new TypeError(`sluice: cost must be an integer >= 0, got ${String(cost)}`);
  }
  return cost;
}
