/**
 * Thrown when a limiter, algorithm, store or middleware is constructed with an invalid
 * value (DESIGN §2 "Bad input"). The message names the option and the value, for example
 * `sluice: invalid option "rate": expected a finite number > 0, got 0`.
 *
 * Thrown at construction time only; nothing invalid is discovered on the request path.
 */
export class SluiceConfigError extends Error {
  /** The option that was invalid, e.g. `"rate"` or `"limit"`. */
  readonly option: string;
  /** The value that was given. */
  readonly value: unknown;

  constructor(option: string, value: unknown, expected: string) {
    super(`sluice: invalid option "${option}": expected ${expected}, got ${describe(value)}`);
    this.name = 'SluiceConfigError';
    this.option = option;
    this.value = value;
  }
}

/** Renders a value for an error message: strings quoted, everything else as JSON-ish text. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return String(value);
  }
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
