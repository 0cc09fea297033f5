import { describe, SluiceConfigError } from './errors.js';

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
 * Checks the options argument of a per-call method (`consume`, `acquire`): `undefined` or an
 * object. A number (`consume(key, 5)`, meaning a cost) is a `TypeError`, not a silent cost 1.
 *
 * @param method - the method, for the message, e.g. `'consume'`.
 * @param options - the argument given.
 * @throws `TypeError` for anything but `undefined` or a non-null, non-array object.
 */
export function checkCallOptions(method: string, options: unknown): void {
  // perf: the check out of line, so the hot path inlines two bytecodes, not the message.
  if (options !== undefined) checkOptionsObject(method, options);
}

function checkOptionsObject(method: string, options: unknown): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    const hint =
      typeof options === 'number' ? ` (for a cost, write ${method}(key, { cost: n }))` : '';
    throw new TypeError(
      `sluice: ${method}(key, options): options must be an object such as { cost: 2 }, got ${describe(options)}${hint}`,
    );
  }
}

/**
 * Checks a per-call cost: a non-negative safe integer (0 = peek).
 * Throws `TypeError` (not a config error: this is a programming error at the call site).
 */
export function checkCost(cost: unknown): number {
  if (typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost < 0) {
    throw new TypeError(`sluice: cost must be an integer >= 0, got ${describe(cost)}`);
  }
  return cost;
}
