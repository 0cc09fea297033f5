import { SluiceConfigError } from './errors.js';

/**
 * A duration: a number of **milliseconds**, or a string the `ms` package reads
 * (`'500ms'`, `'1s'`, `'1 minute'`, `'15m'`, `'1h'`, `'1d'`).
 */
export type Duration = number | string;

// perf: the `ms` package's parse, ported (its formatting half cost every bundle ~0.5 KB gzip).
// Same pattern, same unit constants, same products: duration.test.ts compares it with `ms`.
// ms: Copyright (c) 2020 Vercel, Inc., MIT License (https://github.com/vercel/ms).
const S = 1000;
const M = S * 60;
const H = M * 60;
const D = H * 24;
/** ms per unit, by the first letter of its name (after `ms`, `msec`, `millisecond` are 1). */
const UNIT_MS: Record<string, number> = { s: S, m: M, h: H, d: D, w: D * 7, y: D * 365.25 };
const DURATION_TEXT =
  /^(-?(?:\d+)?\.?\d+) *(milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)?$/i;

/**
 * What the `ms` package reads from `text` in milliseconds (`'1.5h'`, `'90 seconds'`, `'-1d'`,
 * `'100'`), or `undefined` when it cannot read it.
 */
export function msOf(text: string): number | undefined {
  if (text.length > 100) return undefined;
  const match = DURATION_TEXT.exec(text);
  if (match === null) return undefined;
  const n = Number.parseFloat(match[1]!);
  const unit = (match[2] ?? 'ms').toLowerCase();
  return unit.startsWith('ms') || unit.startsWith('milli') ? n : n * UNIT_MS[unit[0]!]!;
}

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
