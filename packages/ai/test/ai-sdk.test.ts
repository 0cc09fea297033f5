// sluiceLanguageModelMiddleware on the AI SDK (ai 6): generateText and streamText charged up
// front and settled from the model's usage; a denial throws RateLimitedError unsent.
import { sluiceLanguageModelMiddleware } from '@sluice/ai';
import { MemoryStore, RateLimitedError } from '@sluice/core';
import { generateText, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';

const T0 = 1_700_000_000_000;
const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

function setup(limit = '10000/min') {
  const store = new MemoryStore();
  let calls = 0;
  const inner = new MockLanguageModelV3({
    doGenerate: async () => {
      calls++;
      return {
        content: [{ type: 'text', text: 'hi' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(300, 200),
        warnings: [],
      } as never;
    },
    doStream: async () => {
      calls++;
      return {
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: '1' },
            { type: 'text-delta', id: '1', delta: 'hi' },
            { type: 'text-end', id: '1' },
            {
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: usage(100, 50),
            },
          ],
        }),
      } as never;
    },
  });
  const middleware = sluiceLanguageModelMiddleware({
    limit,
    store,
    clock: () => T0,
    key: () => 'user-1',
  });
  const model = wrapLanguageModel({ model: inner, middleware });
  const peek = sluiceLanguageModelMiddleware({
    limit,
    store,
    clock: () => T0,
    key: () => 'user-1',
    estimate: { perMessage: 0 },
  });
  return { model, peek, calls: () => calls, store };
}

describe('sluiceLanguageModelMiddleware (ai 6)', () => {
  it('settles generateText to the reported usage', async () => {
    const { model } = setup();
    const first = await generateText({
      model,
      prompt: 'Hello',
      maxOutputTokens: 4000,
      maxRetries: 0,
    });
    expect(first.text).toBe('hi');
    // 500 used of 10,000 ('x' is 9 tokens of input): 9,600 + 9 is refused, 9,490 + 9 passes.
    await expect(
      generateText({ model, prompt: 'x', maxOutputTokens: 9_600, maxRetries: 0 }),
    ).rejects.toBeInstanceOf(RateLimitedError);
    await expect(
      generateText({ model, prompt: 'x', maxOutputTokens: 9_490, maxRetries: 0 }),
    ).resolves.toBeDefined();
  });

  it('throws RateLimitedError before calling the model when the budget is spent', async () => {
    const { model, calls } = setup('1000/min');
    await generateText({ model, prompt: 'Hello', maxOutputTokens: 900, maxRetries: 0 }); // settled to 500
    const error = await generateText({
      model,
      prompt: 'Hello',
      maxOutputTokens: 900,
      maxRetries: 0,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBeGreaterThan(0);
    expect(calls()).toBe(1);
  });

  it("settles streamText from the stream's finish part", async () => {
    const { model } = setup('1000/min');
    const result = streamText({ model, prompt: 'Hello', maxOutputTokens: 900, maxRetries: 0 });
    expect(await result.text).toBe('hi');
    // 150 used: 850 left, so 845 + 9 is refused and 835 + 9 passes.
    await expect(
      generateText({ model, prompt: 'x', maxOutputTokens: 845, maxRetries: 0 }),
    ).rejects.toBeInstanceOf(RateLimitedError);
    const next = await generateText({ model, prompt: 'x', maxOutputTokens: 835, maxRetries: 0 });
    expect(next.text).toBe('hi');
  });
});
