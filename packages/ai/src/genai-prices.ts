import { SluiceConfigError } from '@sluice/core';
import { checkOptionNames } from '@sluice/core/store';
import type { ModelPrice, PriceLookup, PriceTier } from './price.js';

/**
 * A price as `@pydantic/genai-prices` gives one: a number (US$ per million tokens for the
 * `*_mtok` keys) or tiered prices (`{ base, tiers: [{ start, price }] }`, a tier applying
 * to a call with more than `start` input tokens).
 */
type GenaiPrice = number | { base: number; tiers: readonly { start: number; price: number }[] };

/**
 * What {@link genaiPrices} needs of `@pydantic/genai-prices`: its `calcPrice`, which gives
 * `null` for a model it does not know, else the model's prices (`model_price`) at `timestamp`.
 */
export type GenaiCalcPrice = (
  usage: Record<string, number | undefined>,
  modelId: string,
  options?: { providerId?: string; timestamp?: Date },
) => { model_price: Record<string, unknown> } | null;

/** Options of {@link genaiPrices}. */
export interface GenaiPricesOptions {
  /**
   * The provider whose prices apply (`'openai'`, `'anthropic'`, `'google'`…, as
   * `@pydantic/genai-prices` names them). Default: the package matches the model's name.
   */
  providerId?: string;
  /**
   * How long a model's price is kept before it is looked up again, in ms (prices with a
   * start date or an off-peak hour then apply on time). @default 60_000
   */
  refreshMs?: number;
  /** The time prices are looked up for and refreshed on, in ms since the epoch. @default Date.now */
  clock?: () => number;
  /**
   * Prices that take precedence over the package's, by model (a negotiated rate, a model it
   * does not know yet), as `price`'s table.
   */
  overrides?: Readonly<Record<string, ModelPrice>>;
}

/** The most models whose prices are kept; the oldest is forgotten first. */
const MAX_MODELS = 1000;

/** US$ per million tokens to integer micro-units per million, rounded up (0.15 -> 150000). */
const micro = (usd: number): number => Math.ceil(Math.round(usd * 1e9) / 1e3);

/** `p`'s rate for a call of more than `above` input tokens (`above` -1: the base). */
function rateAt(p: GenaiPrice, above: number): number {
  if (typeof p === 'number') return micro(p);
  let usd = p.base;
  let from = -1;
  for (const t of p.tiers) {
    if (above >= t.start && t.start > from) {
      usd = t.price;
      from = t.start;
    }
  }
  return micro(usd);
}

const isPrice = (v: unknown): v is GenaiPrice =>
  (typeof v === 'number' && Number.isFinite(v) && v >= 0) ||
  (v !== null &&
    typeof v === 'object' &&
    typeof (v as { base?: unknown }).base === 'number' &&
    Array.isArray((v as { tiers?: unknown }).tiers));

/**
 * A model's {@link ModelPrice} from `@pydantic/genai-prices`' `model_price`: `input_mtok`,
 * `cache_read_mtok`, `cache_write_mtok` and `output_mtok` (their tiers by input size as
 * `tiers`); `undefined`
 * when it has no per-token input and output price.
 */
export function fromGenaiModelPrice(prices: Record<string, unknown>): ModelPrice | undefined {
  const input = prices.input_mtok;
  const output = prices.output_mtok;
  const cached = prices.cache_read_mtok;
  const written = prices.cache_write_mtok;
  if (!isPrice(input) || !isPrice(output)) return undefined;
  const rated = [input, output, ...[cached, written].filter(isPrice)];
  const at = (above: number) => ({
    input: rateAt(input, above),
    ...(isPrice(cached) ? { cachedInput: rateAt(cached, above) } : {}),
    ...(isPrice(written) ? { cacheWriteInput: rateAt(written, above) } : {}),
    output: rateAt(output, above),
  });
  const starts = [
    ...new Set(rated.flatMap((p) => (typeof p === 'number' ? [] : p.tiers.map((t) => t.start)))),
  ].sort((a, b) => a - b);
  const base = at(-1);
  if (starts.length === 0) return base;
  const tiers: PriceTier[] = starts.map((start) => ({ above: start, ...at(start) }));
  return { ...base, tiers };
}

/**
 * Prices for `tokenLimiter`'s `price` from `@pydantic/genai-prices` (Pydantic's catalogue
 * of LLM API prices, kept up to date with the providers' price pages; an optional peer you
 * install): each model's input, cache-read, cache-write and output prices per million
 * tokens, US$ as integer micro-units (US$2.50 is `2_500_000`), rounded up, with its
 * long-context tiers. Prices per request, search or image are not counted. A model the package does not know (and `overrides` does not name) has no price:
 * a call for it with a `budget` is refused.
 *
 * @param calcPrice - `calcPrice` of `@pydantic/genai-prices` (`import { calcPrice } from
 *   '@pydantic/genai-prices'`); sluice does not load the package itself.
 * @param options - see {@link GenaiPricesOptions}.
 * @returns a {@link PriceLookup}: a model's price, looked up once per `refreshMs`.
 * @throws {@link SluiceConfigError} for a `calcPrice` that is not a function or a bad option.
 * @example
 * ```ts
 * import { calcPrice } from '@pydantic/genai-prices';
 * import { genaiPrices, Limit, tokenLimiter } from '@sluice/ai';
 *
 * const tokens = tokenLimiter({
 *   limit: '200000/min',
 *   budget: Limit.perCalendarMonth(500_000_000), // US$500 a month
 *   price: genaiPrices(calcPrice, { providerId: 'openai' }),
 * });
 * ```
 */
export function genaiPrices(
  calcPrice: GenaiCalcPrice,
  options: GenaiPricesOptions = {},
): PriceLookup {
  if (typeof calcPrice !== 'function') {
    throw new SluiceConfigError(
      'calcPrice',
      calcPrice,
      "calcPrice of '@pydantic/genai-prices' (import { calcPrice } from '@pydantic/genai-prices')",
    );
  }
  checkOptionNames(options, ['providerId', 'refreshMs', 'clock', 'overrides'], 'genaiPrices()');
  const { providerId, refreshMs = 60_000, clock = Date.now, overrides = {} } = options;
  if (providerId !== undefined && (typeof providerId !== 'string' || providerId === '')) {
    throw new SluiceConfigError('providerId', providerId, "a provider id such as 'openai'");
  }
  if (!Number.isInteger(refreshMs) || refreshMs < 0) {
    throw new SluiceConfigError('refreshMs', refreshMs, 'an integer of ms >= 0');
  }
  if (typeof clock !== 'function') {
    throw new SluiceConfigError('clock', clock, 'a function () => ms since the epoch');
  }
  if (overrides === null || typeof overrides !== 'object') {
    throw new SluiceConfigError('overrides', overrides, 'a price table { [model]: price }');
  }
  const kept = new Map<string, { price: ModelPrice | undefined; until: number }>();
  return (model) => {
    if (model === undefined) return undefined;
    if (Object.hasOwn(overrides, model)) return overrides[model];
    const now = clock();
    const hit = kept.get(model);
    if (hit !== undefined && now < hit.until) return hit.price;
    const found = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, {
      ...(providerId === undefined ? {} : { providerId }),
      timestamp: new Date(now),
    });
    const price = found === null ? undefined : fromGenaiModelPrice(found.model_price);
    kept.delete(model);
    kept.set(model, { price, until: now + refreshMs });
    if (kept.size > MAX_MODELS) kept.delete(kept.keys().next().value!);
    return price;
  };
}
