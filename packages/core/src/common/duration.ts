import ms from 'ms';
import { SluiceConfigError } from './errors.js';

/**
 * A duration: a number of **milliseconds**, or a string `ms` understands
 * (`'500ms'`, `'1s'`, `'1 minute'`, `'15m'`, `'1h'`, `'1d'`).
 */
export type Duration = number | string;

/**
 * What the `ms` package reads from `text` in milliseconds, or `undefined` when it cannot read
 * it (it may also throw on some non-strings).
 */
export const msOf = ms as (text: string) => number | undefined;

/**
 * Parses a {@link Duration} into milliseconds (a finite number > 0).
 *
 * @param option - the option name, used in the error message.
 * @throws {@link SluiceConfigError} for a non-positive, non-finite or unparsable value.
 */
export function parseDuration(option: string, value: unknown): number {
  const parsed = durationMs(value);
  if (parsed === undefined) {
    throw new SluiceConfigError(
      option,
      value,
      "a duration > 0: milliseconds or a string like '500ms', '1s', '1 minute', '15m', '1h', '1d'",
    );
  }
  return parsed;
}

/**
 * A {@link Duration} in milliseconds (a finite number > 0), or `undefined` when `value` is
 * not one. {@link parseDuration} without the error.
 */
export function durationMs(value: unknown): number | undefined {
  let parsed: number | undefined;
  if (typeof value === 'number') parsed = value;
  else if (typeof value === 'string' && value.trim() !== '') {
    parsed = msOf(value.trim());
  }
  if (parsed === undefined || !Number.isFinite(parsed) || parsed <= 0) return undefined;
  return parsed;
}

/**
 * `periodMs` when it is a whole number of milliseconds that fits in 53 bits.
 *
 * @param option - the option named by the error; `value` the value it reports.
 * @param expected - what the error says was expected.
 * @throws {@link SluiceConfigError} otherwise.
 */
export function wholeMs(
  periodMs: number,
  option: string,
  value: unknown,
  expected = 'a whole number of milliseconds',
): number {
  if (!Number.isSafeInteger(periodMs)) throw new SluiceConfigError(option, value, expected);
  return periodMs;
}

/**
 * {@link parseDuration}, then a whole number of milliseconds.
 * @throws {@link SluiceConfigError} naming `option` otherwise.
 */
export function parseWholeMs(option: string, value: unknown): number {
  return wholeMs(parseDuration(option, value), option, value);
}
