/**
 * `@sluice/ai`: token budgets for LLM traffic on the sluice engine (docs/guide/ai.md): an
 * upfront charge of each call's estimate, settled to the reported usage, exact across
 * processes on every store.
 *
 * @packageDocumentation
 */

export type { Decision, LimitInput, Store } from '@sluice/core';
export {
  Limit,
  MemoryStore,
  RateLimitedError,
  SluiceConfigError,
  ThrottleRegistry,
  throttles,
} from '@sluice/core';
export type {
  LanguageModelCallParams,
  LanguageModelMiddlewareOptions,
  SluiceLanguageModelMiddleware,
} from './ai-sdk.js';
export { sluiceLanguageModelMiddleware } from './ai-sdk.js';
export type { EstimateOptions } from './estimate.js';
export { estimateTokens } from './estimate.js';
export type { GenaiCalcPrice, GenaiPricesOptions } from './genai-prices.js';
export { genaiPrices } from './genai-prices.js';
export type { FetchHandler, LimitTokensOptions } from './limit-tokens.js';
export { limitTokens } from './limit-tokens.js';
export type { MeterStreamOptions } from './meter-stream.js';
export { meterStream } from './meter-stream.js';
export type { ModelPrice, PriceLookup, PriceTable, PriceTier, TokenRates } from './price.js';
export type { LimitKind, TokenCharge } from './token-charge.js';
export type {
  ChargeOptions,
  TokenLimiter,
  TokenLimiterOptions,
  TokenLimitView,
} from './token-limiter.js';
export { tokenLimiter } from './token-limiter.js';
export type { UsageTokens } from './usage.js';
export { usageTokens } from './usage.js';
