// What settle counts (docs/guide/ai.md): each provider's usage shape.
import { usageTokens } from '@sluice/ai';

describe('usageTokens', () => {
  it.each([
    [
      'Chat Completions',
      {
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        prompt_tokens_details: { cached_tokens: 30 },
      },
      100,
      30,
      20,
    ],
    [
      'Responses',
      { input_tokens: 50, output_tokens: 70, input_tokens_details: { cached_tokens: 10 } },
      50,
      10,
      70,
    ],
    [
      'Anthropic (input_tokens excludes the cache)',
      {
        input_tokens: 5,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 400,
        output_tokens: 9,
      },
      505,
      400,
      9,
      100,
    ],
    [
      'AI SDK v5',
      { inputTokens: 12, outputTokens: 8, totalTokens: 20, cachedInputTokens: 2 },
      12,
      2,
      8,
    ],
    [
      'AI SDK v6 (nested totals)',
      {
        inputTokens: { total: 40, noCache: 25, cacheRead: 10, cacheWrite: 5 },
        outputTokens: { total: 15, text: 10, reasoning: 5 },
      },
      40,
      10,
      15,
      5,
    ],
    ['a whole response', { id: 'x', usage: { prompt_tokens: 3, completion_tokens: 4 } }, 3, 0, 4],
    ['a missing field counts 0', { completion_tokens: 4 }, 0, 0, 4],
  ])('%s', (_name, usage, input, cachedInput, output, cacheWriteInput = 0) => {
    expect(usageTokens(usage)).toEqual({
      input,
      cachedInput,
      cacheWriteInput,
      output,
      total: input + output,
    });
  });

  it('cache reads and writes never add up to more than the input', () => {
    expect(
      usageTokens({ inputTokens: { total: 10, cacheRead: 8, cacheWrite: 8 }, outputTokens: 1 }),
    ).toEqual({ input: 10, cachedInput: 8, cacheWriteInput: 2, output: 1, total: 11 });
  });

  it('is undefined for no usage object (the upfront charge is then kept)', () => {
    for (const u of [undefined, null, 42, 'x', [], { id: 'resp' }])
      expect(usageTokens(u)).toBeUndefined();
  });
});
