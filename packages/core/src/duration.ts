import ms from 'ms';
import { SluiceConfigError } from './errors.js';

/**
 * A duration: a number of **milliseconds**, or a string `ms` understands
 * (`'500ms'`, `'1s'`, `'1 minute'`, `'15m'`, `'1h'`, `'1d'`).
 */
export type Duration = number | string;

/**
 * Parses a {@link Duration} into milliseconds (a finite number > 0).
 *
 * @param option - the option name, used in the error message.
 * @throws {@link SluiceConfigError} for a non-positive, non-finite or unparsable value.
 */
export function parseDuration(option: string, value: unknown): number {
  let parsed: number | undefined;
  if (typeof value === 'number') parsed = value;
  else if (typeof value === 'string' && value.trim() !== '') {
    // ms() returns undefined (or throws on some non-strings) for anything it cannot read.
    parsed = (ms as (s: string) => number | undefined)(value.trim());
  }
  if (parsed === undefined || !Number.isFinite(parsed) || parsed <= 0) {
    throw new SluiceConfigError(
      option,
      value,
      "a duration > 0: milliseconds or a string like '500ms', '1s', '1 minute', '15m', '1h', '1d'",
    );
  }
  return parsed;
}
