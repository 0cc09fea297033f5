// sluiceLanguageModelMiddleware on the AI SDK, ai 6 and ai 7 (the `ai-7` alias, `npm:ai@7`):
// generateText and streamText charged up front and settled from the model's usage; a denial
// throws RateLimitedError unsent. The same cases run on each major, each on its own mock model
// (ai 6's MockLanguageModelV3, ai 7's MockLanguageModelV4). ai 7 needs Node 22+ (its engines
// field): on Node 20 its cases are skipped, and CI's Node 22, 24 and 26 runs take them
// (jest.node-majors.config.ts; jest.config.ts compiles ai 7's ES modules for jest).
import { sluiceLanguageModelMiddleware } from '@sluice/ai';
import { MemoryStore, RateLimitedError } from '@sluice/core';
import * as ai6 from 'ai';
import * as ai6Test from 'ai/test';

const T0 = 1_700_000_000_000;
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** What the cases use of one AI SDK major: its calls, and a mock model of its spec version. */
interface Sdk {
  generateText: typeof ai6.generateText;
  streamText: typeof ai6.streamText;
  wrapLanguageModel: typeof ai6.wrapLanguageModel;
  simulateReadableStream: typeof ai6Test.simulateReadableStream;
  MockLanguageModel: new (
    options: ConstructorParameters<typeof ai6Test.MockLanguageModelV3>[0],
  ) => ai6Test.MockLanguageModelV3;
}

const majors: { major: 6 | 7; skip?: string; load: () => Promise<Sdk> }[] = [
  {
    major: 6,
    load: async () => ({ ...ai6, ...ai6Test, MockLanguageModel: ai6Test.MockLanguageModelV3 }),
  },
  {
    major: 7,
    skip:
      NODE_MAJOR < 22
        ? `ai 7 needs Node 22+ (engines node>=22); this is Node ${NODE_MAJOR}, CI's Node 22+ runs take it`
        : undefined,
    load: async () => {
      const [ai7, ai7Test] = await Promise.all([import('ai-7'), import('ai-7/test')]);
      return {
        ...(ai7 as unknown as Pick<Sdk, 'generateText' | 'streamText' | 'wrapLanguageModel'>),
        simulateReadableStream: ai7Test.simulateReadableStream,
        MockLanguageModel: ai7Test.MockLanguageModelV4 as unknown as Sdk['MockLanguageModel'],
      };
    },
  },
];

// Compile time: the middleware is each major's `LanguageModelMiddleware` (ai 7's accepts the v3
// middleware version; its wrapGenerate/wrapStream pass the same options and results).
type Middleware = ReturnType<typeof sluiceLanguageModelMiddleware>;
export const asMiddleware6 = (m: Middleware): ai6.LanguageModelMiddleware => m;
export const asMiddleware7 = (m: Middleware): import('ai-7').LanguageModelMiddleware => m;

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

for (const { major, skip, load } of majors) {
  const suite = skip === undefined ? describe : describe.skip;
  suite(`sluiceLanguageModelMiddleware (ai ${major})${skip ? ` — skipped: ${skip}` : ''}`, () => {
    let sdk: Sdk;
    beforeAll(async () => {
      sdk = await load();
    });

    function setup(limit = '10000/min') {
      const store = new MemoryStore();
      let calls = 0;
      const inner = new sdk.MockLanguageModel({
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
            stream: sdk.simulateReadableStream({
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
      const model = sdk.wrapLanguageModel({ model: inner, middleware });
      return { model, calls: () => calls, store };
    }

    it('settles generateText to the reported usage', async () => {
      const { model } = setup();
      // The mock is the spec version this major's models are: ai 7 wraps a v4 model.
      expect(new sdk.MockLanguageModel({}).specificationVersion).toBe(major === 7 ? 'v4' : 'v3');
      const first = await sdk.generateText({
        model,
        prompt: 'Hello',
        maxOutputTokens: 4000,
        maxRetries: 0,
      });
      expect(first.text).toBe('hi');
      // 500 used of 10,000 ('x' is 9 tokens of input): 9,600 + 9 is refused, 9,490 + 9 passes.
      await expect(
        sdk.generateText({ model, prompt: 'x', maxOutputTokens: 9_600, maxRetries: 0 }),
      ).rejects.toBeInstanceOf(RateLimitedError);
      await expect(
        sdk.generateText({ model, prompt: 'x', maxOutputTokens: 9_490, maxRetries: 0 }),
      ).resolves.toBeDefined();
    });

    it('throws RateLimitedError before calling the model when the budget is spent', async () => {
      const { model, calls } = setup('1000/min');
      await sdk.generateText({ model, prompt: 'Hello', maxOutputTokens: 900, maxRetries: 0 }); // settled to 500
      const error = await sdk
        .generateText({ model, prompt: 'Hello', maxOutputTokens: 900, maxRetries: 0 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitedError);
      expect((error as RateLimitedError).retryAfterMs).toBeGreaterThan(0);
      expect(calls()).toBe(1);
    });

    it("settles streamText from the stream's finish part", async () => {
      const { model } = setup('1000/min');
      const result = sdk.streamText({
        model,
        prompt: 'Hello',
        maxOutputTokens: 900,
        maxRetries: 0,
      });
      expect(await result.text).toBe('hi');
      // 150 used: 850 left, so 845 + 9 is refused and 835 + 9 passes.
      await expect(
        sdk.generateText({ model, prompt: 'x', maxOutputTokens: 845, maxRetries: 0 }),
      ).rejects.toBeInstanceOf(RateLimitedError);
      const next = await sdk.generateText({
        model,
        prompt: 'x',
        maxOutputTokens: 835,
        maxRetries: 0,
      });
      expect(next.text).toBe('hi');
    });

    it('gives the charge back when the model fails before answering', async () => {
      const { model, store } = setup('1000/min');
      const failing = sdk.wrapLanguageModel({
        model: new sdk.MockLanguageModel({
          doGenerate: async () => {
            throw new Error('provider down');
          },
        }),
        middleware: sluiceLanguageModelMiddleware({
          limit: '1000/min',
          store,
          clock: () => T0,
          key: () => 'user-1',
        }),
      });
      await expect(
        sdk.generateText({ model: failing, prompt: 'x', maxOutputTokens: 990, maxRetries: 0 }),
      ).rejects.toThrow('provider down');
      // The 999 charged came back: the whole 1,000 is there for the next call.
      const next = await sdk.generateText({
        model,
        prompt: 'x',
        maxOutputTokens: 990,
        maxRetries: 0,
      });
      expect(next.text).toBe('hi');
    });
  });
}
