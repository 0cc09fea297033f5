/**
 * A call's reported usage in tokens, as {@link usageTokens} reads it from any provider's
 * shape.
 */
export interface UsageTokens {
  /** Input tokens, cached and cache-written ones included. */
  input: number;
  /** Of `input`, those read from the provider's prompt cache (priced apart). */
  cachedInput: number;
  /** Of `input`, those written to the provider's prompt cache (Anthropic's, priced apart). */
  cacheWriteInput: number;
  /** Output tokens (reasoning included). */
  output: number;
  /** `input + output`: what a token limit is settled to. */
  total: number;
}

const count = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.ceil(v) : 0;

/** The AI SDK's count: a number (v5), or `{ total }` (v6's nested usage). */
const sdkCount = (v: unknown): number =>
  v !== null && typeof v === 'object' ? count((v as { total?: unknown }).total) : count(v);

const has = (o: Record<string, unknown>, ...names: string[]): boolean =>
  names.some((n) => o[n] !== undefined);

/**
 * Reads a call's usage (docs/guide/ai.md, "What settle counts"):
 *
 * | shape | tokens |
 * | --- | --- |
 * | OpenAI Chat Completions | `prompt_tokens + completion_tokens` |
 * | OpenAI Responses | `input_tokens + output_tokens` |
 * | Anthropic Messages | `input_tokens + cache_creation_input_tokens + cache_read_input_tokens + output_tokens` |
 * | AI SDK | `inputTokens + outputTokens` (their `total` when nested) |
 *
 * A missing field counts 0; a whole response (an object with a `usage` field) is read
 * through its `usage`.
 *
 * @returns the counts, or `undefined` when `usage` is no usage object (a limiter then keeps
 *   its upfront charge: it never settles to 0 on a missing report).
 * @example
 * ```ts
 * usageTokens({ prompt_tokens: 12, completion_tokens: 30 }); // { input: 12, cachedInput: 0, cacheWriteInput: 0, output: 30, total: 42 }
 * ```
 */
export function usageTokens(usage: unknown): UsageTokens | undefined {
  if (usage === null || typeof usage !== 'object' || Array.isArray(usage)) return undefined;
  const u = usage as Record<string, unknown>;
  let input: number;
  let cachedInput = 0;
  let cacheWriteInput = 0;
  let output: number;
  if (has(u, 'prompt_tokens', 'completion_tokens')) {
    input = count(u.prompt_tokens);
    output = count(u.completion_tokens);
    cachedInput = count((u.prompt_tokens_details as { cached_tokens?: unknown })?.cached_tokens);
  } else if (has(u, 'input_tokens', 'output_tokens', 'cache_read_input_tokens')) {
    const read = count(u.cache_read_input_tokens);
    cacheWriteInput = count(u.cache_creation_input_tokens);
    input = count(u.input_tokens) + cacheWriteInput + read;
    output = count(u.output_tokens);
    cachedInput =
      read + count((u.input_tokens_details as { cached_tokens?: unknown })?.cached_tokens);
  } else if (has(u, 'inputTokens', 'outputTokens')) {
    input = sdkCount(u.inputTokens);
    output = sdkCount(u.outputTokens);
    const nested = u.inputTokens as
      | { cacheRead?: unknown; cacheWrite?: unknown }
      | number
      | undefined;
    const isNested = typeof nested === 'object' && nested !== null;
    cachedInput = isNested ? count(nested.cacheRead) : count(u.cachedInputTokens);
    cacheWriteInput = isNested ? count(nested.cacheWrite) : 0;
  } else if (u.usage !== undefined) {
    return usageTokens(u.usage);
  } else return undefined;
  cachedInput = Math.min(cachedInput, input);
  cacheWriteInput = Math.min(cacheWriteInput, input - cachedInput);
  return { input, cachedInput, cacheWriteInput, output, total: input + output };
}
