import Anthropic from '@anthropic-ai/sdk';
import { pacedFetch } from '@sluice/client';
import { EPOCH, type ProviderServer, startProvider, VirtualTime } from '@sluice/test-kit';
import OpenAI6 from 'openai';
import OpenAI7 from 'openai-7';
import { estimateTokens } from '../src/index.js';

// The batch job of docs/guide/ai.md: the OpenAI and Anthropic SDKs with
// `fetch: pacedFetch(fetch, { estimate: estimateTokens })` and `maxRetries: 0`, against a
// local HTTP server that answers as the providers do (their rate-limit headers, resets in
// their formats, `retry-after-ms` / `retry-after`, their 429 bodies) and enforces 600 tokens
// per 2 s window itself. Time is virtual: the client's clock and sleep and the server's
// clock are one `VirtualTime`, which jumps to the next wake-up when nothing is in flight,
// so the three windows take what the calls take in real time.
const WINDOW = { tokens: 600, requests: 1000, windowMs: 2000 };
// openai 7 needs Node 22+ (its engines): CI's runs on Node 22, 24 and 26 take it, Node 20
// takes openai 6.
const OPENAI_MAJOR = Number(process.versions.node.split('.')[0]) >= 22 ? 7 : 6;
const OpenAI = (OPENAI_MAJOR === 7 ? OpenAI7 : OpenAI6) as unknown as typeof OpenAI6;
const CALLS = 14;

describe(`openai ${OPENAI_MAJOR} and @anthropic-ai/sdk 1 with pacedFetch and estimateTokens: 600 tokens per 2 s`, () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  // ~100 tokens a call: `max_tokens: 100` (what the server counts) plus the prompt.
  const body = { max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };

  const run = async (provider: 'openai' | 'anthropic', paced: boolean) => {
    const time = new VirtualTime(EPOCH);
    server = await startProvider({ provider, clock: time.clock, ...WINDOW });
    const base = time.wrap(fetch);
    const fetchFn = paced
      ? pacedFetch(base, { clock: time.clock, sleep: time.sleep, estimate: estimateTokens })
      : base;
    let call: () => Promise<unknown>;
    if (provider === 'openai') {
      const client = new OpenAI({
        apiKey: 'test-key',
        baseURL: `${server.url}/v1`,
        fetch: fetchFn,
        maxRetries: 0,
      });
      call = () => client.chat.completions.create({ model: 'gpt-test', ...body });
    } else {
      const client = new Anthropic({
        apiKey: 'test-key',
        baseURL: server.url,
        fetch: fetchFn,
        maxRetries: 0,
      });
      call = () => client.messages.create({ model: 'claude-test', ...body });
    }
    const started = time.now;
    const results = await time.run(Promise.allSettled(Array.from({ length: CALLS }, call)));
    return { results, server, elapsed: time.now - started };
  };

  it('estimateTokens counts the call as the SDK sends it: the prompt and max_tokens', async () => {
    const request = new Request('https://api.test/v1/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-test', ...body }),
    });
    // 'hi' (1 token) + 4 per message and 4 for the reply + max_tokens 100.
    await expect(estimateTokens(request)).resolves.toBe(109);
  });

  it.each(['openai', 'anthropic'] as const)(
    '%s: 14 calls of ~100 tokens at once -> 14 answers, 0 x 429 at the server',
    async (provider) => {
      const { results, server: s, elapsed } = await run(provider, true);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(CALLS);
      expect(s.refused).toBe(0);
      expect(s.served).toBe(CALLS);
      // 109 estimated a call: 5 fit a window of 600, so three windows (0, 2 s, 4 s).
      expect([...s.perWindow.values()]).toEqual([5, 5, 4]);
      expect(elapsed).toBeGreaterThanOrEqual(2 * WINDOW.windowMs);
      expect(elapsed).toBeLessThan(3 * WINDOW.windowMs);
    },
  );

  it.each(['openai', 'anthropic'] as const)(
    '%s without pacedFetch: the same 14 calls get 8 x 429, each a RateLimitError of the SDK',
    async (provider) => {
      const { results, server: s } = await run(provider, false);
      expect(s.refused).toBe(8);
      const rejected = results.filter((r) => r.status === 'rejected');
      expect(rejected).toHaveLength(8);
      const RateLimit = provider === 'openai' ? OpenAI.RateLimitError : Anthropic.RateLimitError;
      for (const r of rejected) {
        expect(r.reason).toBeInstanceOf(RateLimit);
        // The SDK read the server's 429 body as the provider's own.
        expect(r.reason).toMatchObject(
          provider === 'openai'
            ? { status: 429, type: 'tokens', code: 'rate_limit_exceeded' }
            : { status: 429, error: { type: 'error', error: { type: 'rate_limit_error' } } },
        );
      }
    },
  );
});
