import { SluiceConfigError } from '@sluice/core';
import type { UsageTokens } from './usage.js';

/**
 * One model's price per **million** tokens, in integer micro-units of a currency
 * (US$2.50 per million input tokens is `2_500_000`).
 */
export interface ModelPrice {
  /** Per million input tokens. */
  input: number;
  /** Per million cached input tokens. Default: `input`. */
  cachedInput?: number;
  /** Per million output tokens. */
  output: number;
}

/**
 * Prices by model name, as the request's `model` says it; a `'*'` entry prices any model
 * the table does not name (without one, a call for an unpriced model is refused: a budget
 * never lets a call through uncounted).
 */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** Checks the `price` option: every entry's fields integers >= 0. */
export function checkPrice(price: unknown): PriceTable {
  if (price === null || typeof price !== 'object' || Array.isArray(price)) {
    throw new SluiceConfigError(
      'price',
      price,
      'an object { [model]: { input, cachedInput?, output } }',
    );
  }
  for (const [model, p] of Object.entries(price)) {
    const entry = p as Record<string, unknown> | null;
    const ok =
      entry !== null &&
      typeof entry === 'object' &&
      [entry.input, entry.output].every((v) => Number.isInteger(v) && (v as number) >= 0) &&
      (entry.cachedInput === undefined ||
        (Number.isInteger(entry.cachedInput) && (entry.cachedInput as number) >= 0));
    if (!ok) {
      throw new SluiceConfigError(
        'price',
        p,
        `integer micro-units >= 0 per million tokens { input, cachedInput?, output } for model ${JSON.stringify(model)}`,
      );
    }
  }
  return Object.freeze({ ...(price as PriceTable) });
}

/** The price of `model` in `table`: its own entry, else `'*'`, else `undefined`. */
export function priceOf(table: PriceTable, model: string | undefined): ModelPrice | undefined {
  if (model !== undefined && Object.hasOwn(table, model)) return table[model];
  return Object.hasOwn(table, '*') ? table['*'] : undefined;
}

/**
 * What `tokens` cost at `price`, in micro-units, rounded up per call:
 * `ceil(((input - cachedInput) × input + cachedInput × cachedInput + output × output) / 1e6)`.
 */
export function costOf(price: ModelPrice, tokens: Omit<UsageTokens, 'total'>): number {
  const cached = Math.min(tokens.cachedInput, tokens.input);
  const microMillions =
    (tokens.input - cached) * price.input +
    cached * (price.cachedInput ?? price.input) +
    tokens.output * price.output;
  return Math.ceil(microMillions / 1_000_000);
}
