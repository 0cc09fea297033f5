import { SluiceConfigError } from '@sluice/core';
import type { UsageTokens } from './usage.js';

/** Per-million-token prices of one rate, in integer micro-units of a currency. */
export interface TokenRates {
  /** Per million input tokens. */
  input: number;
  /** Per million cached input tokens (read from the provider's prompt cache). Default: `input`. */
  cachedInput?: number;
  /** Per million input tokens written to the prompt cache (Anthropic's). Default: `input`. */
  cacheWriteInput?: number;
  /** Per million output tokens. */
  output: number;
}

/**
 * A higher rate for long prompts (Gemini's and Anthropic's long-context prices): a call
 * whose input tokens are more than `above` pays these rates for all its tokens.
 */
export interface PriceTier extends TokenRates {
  /** Input tokens: the tier applies to a call with more than this many. An integer >= 0. */
  above: number;
}

/**
 * One model's price per **million** tokens, in integer micro-units of a currency
 * (US$2.50 per million input tokens is `2_500_000`).
 *
 * @example
 * ```ts
 * const gemini: ModelPrice = {
 *   input: 1_250_000, cachedInput: 125_000, output: 10_000_000,
 *   tiers: [{ above: 200_000, input: 2_500_000, cachedInput: 250_000, output: 15_000_000 }],
 * };
 * ```
 */
export interface ModelPrice extends TokenRates {
  /** Rates for long prompts, by input size (the highest `above` the call exceeds applies). */
  tiers?: readonly PriceTier[];
}

/**
 * Prices by model name, as the request's `model` says it; a `'*'` entry prices any model
 * the table does not name (without one, a call for an unpriced model is refused: a budget
 * never lets a call through uncounted).
 */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Prices looked up per call: the price of `model` (the request's `model`, `undefined` when
 * it has none), or `undefined` when unknown (a call with a `budget` is then refused).
 * {@link genaiPrices} makes one from `@pydantic/genai-prices`.
 *
 * @example
 * ```ts
 * const price: PriceLookup = (model) => (model?.startsWith('gpt-4o-mini') ? { input: 150_000, output: 600_000 } : undefined);
 * ```
 */
export type PriceLookup = (model: string | undefined) => ModelPrice | undefined;

const SHAPE =
  'integer micro-units >= 0 per million tokens { input, cachedInput?, cacheWriteInput?, output, tiers? }';

const isCount = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0;

function ratesOk(entry: unknown): boolean {
  if (entry === null || typeof entry !== 'object') return false;
  const e = entry as Record<string, unknown>;
  return (
    isCount(e.input) &&
    isCount(e.output) &&
    [e.cachedInput, e.cacheWriteInput].every((v) => v === undefined || isCount(v))
  );
}

/** `p` as a checked, frozen {@link ModelPrice} (tiers sorted by `above`), else `undefined`. */
function modelPrice(p: unknown): ModelPrice | undefined {
  if (!ratesOk(p)) return undefined;
  const tiers = (p as { tiers?: unknown }).tiers;
  if (tiers === undefined) return Object.freeze({ ...(p as ModelPrice) });
  if (!Array.isArray(tiers) || !tiers.every((t) => ratesOk(t) && isCount(t.above)))
    return undefined;
  const sorted = Object.freeze(
    [...(tiers as PriceTier[])]
      .sort((a, b) => a.above - b.above)
      .map((t) => Object.freeze({ ...t })),
  );
  return Object.freeze({ ...(p as ModelPrice), tiers: sorted });
}

/**
 * Checks the `price` option: a {@link PriceTable} (every entry's fields integers >= 0) or a
 * {@link PriceLookup}, whose answers are checked as they come (a bad one rejects the charge
 * with a `SluiceConfigError` naming `price`).
 */
export function checkPrice(price: unknown): PriceLookup {
  if (typeof price === 'function') {
    const lookup = price as PriceLookup;
    return (model) => {
      const p = lookup(model);
      if (p === undefined) return undefined;
      const checked = modelPrice(p);
      if (checked === undefined) {
        throw new SluiceConfigError('price', p, `${SHAPE} for model ${JSON.stringify(model)}`);
      }
      return checked;
    };
  }
  if (price === null || typeof price !== 'object' || Array.isArray(price)) {
    throw new SluiceConfigError(
      'price',
      price,
      'an object { [model]: { input, cachedInput?, cacheWriteInput?, output, tiers? } }, or a function (model) => price',
    );
  }
  const table: Record<string, ModelPrice> = {};
  for (const [model, p] of Object.entries(price)) {
    const checked = modelPrice(p);
    if (checked === undefined) {
      throw new SluiceConfigError('price', p, `${SHAPE} for model ${JSON.stringify(model)}`);
    }
    table[model] = checked;
  }
  return (model) => {
    if (model !== undefined && Object.hasOwn(table, model)) return table[model];
    return Object.hasOwn(table, '*') ? table['*'] : undefined;
  };
}

/**
 * What `tokens` cost at `price`, in micro-units, rounded up per call, at the rates of the
 * highest tier whose `above` the input exceeds (else the base rates): `ceil((uncached ×
 * input + cachedInput × cachedInput + cacheWriteInput × cacheWriteInput + output × output) /
 * 1e6)`, `uncached` the input tokens neither read from nor written to the cache.
 */
export function costOf(
  price: ModelPrice,
  tokens: Omit<UsageTokens, 'total' | 'cacheWriteInput'> & { cacheWriteInput?: number },
): number {
  let rates: TokenRates = price;
  for (const tier of price.tiers ?? []) if (tokens.input > tier.above) rates = tier;
  const cached = Math.min(tokens.cachedInput, tokens.input);
  const written = Math.min(tokens.cacheWriteInput ?? 0, tokens.input - cached);
  const microMillions =
    (tokens.input - cached - written) * rates.input +
    cached * (rates.cachedInput ?? rates.input) +
    written * (rates.cacheWriteInput ?? rates.input) +
    tokens.output * rates.output;
  return Math.ceil(microMillions / 1_000_000);
}
