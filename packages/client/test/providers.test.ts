import { EPOCH, openAiReset, VirtualTime } from '@sluice/test-kit';
import { openAiDuration } from '../src/headers/providers.js';
import { pacedFetch, parseRateLimitHeaders } from '../src/index.js';
import { scripted, virtual } from './scripted.js';

// OpenAI's and Anthropic's own rate-limit headers, and pacing by tokens with `estimate`.
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
const parse = (headers: Record<string, string>) => parseRateLimitHeaders(new Headers(headers), NOW);

describe("OpenAI's headers", () => {
  it.each([
    ['6m0s', 360_000],
    ['1.5s', 1500],
    ['20ms', 20],
    ['1h2m3s', 3_723_000],
    ['59.999s', 59_999],
    ['0s', 0],
    ['2m30.5s', 150_500],
    // Go prints a duration under 1 ms in µs or ns; OpenAI's resets are Go durations.
    ['850µs', 1],
    ['850us', 1],
    ['1.2ms', 2],
    ['100ns', 1],
    ['1m0.000001s', 60_001],
    ['24h0m0s', 86_400_000],
  ])('the reset %s is %d ms', (text, ms) => {
    expect(openAiDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '5', '-1s', '1.5', 's', 'ms', '1d', '1s1m', '1s1s', '1h 2m', '1.s', '+1s'])(
    '%p is no reset',
    (text) => {
      expect(openAiDuration(text)).toBeUndefined();
    },
  );

  it('reads x-ratelimit-*-requests and -tokens as two policies, and retry-after-ms', () => {
    const info = parse({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1s',
      'x-ratelimit-limit-tokens': '150000',
      'x-ratelimit-remaining-tokens': '149984',
      'x-ratelimit-reset-tokens': '6m0s',
      'retry-after-ms': '20.5',
      'retry-after': '1',
    });
    expect(info.style).toBe('openai');
    expect(info.retryAt).toBe(NOW + 21);
    expect(info.policies).toEqual([
      expect.objectContaining({
        id: 'openai:requests',
        name: 'requests',
        tokens: false,
        quota: 60,
        remaining: 59,
        resetAt: NOW + 1000,
      }),
      expect.objectContaining({
        id: 'openai:tokens',
        name: 'tokens',
        tokens: true,
        quota: 150000,
        remaining: 149984,
        resetAt: NOW + 360_000,
      }),
    ]);
  });

  it('a malformed retry-after-ms falls back to Retry-After; a malformed reset is no reset', () => {
    const info = parse({
      'x-ratelimit-remaining-tokens': '5',
      'x-ratelimit-reset-tokens': 'tomorrow',
      'retry-after-ms': '-3',
      'retry-after': '2',
    });
    expect(info.retryAt).toBe(NOW + 2000);
    expect(info.policies[0]).toMatchObject({ remaining: 5, resetAt: undefined });
  });
});

describe("Anthropic's headers", () => {
  it('reads requests, tokens, input-tokens and output-tokens, the resets RFC 3339 times', () => {
    const info = parse({
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '49',
      'anthropic-ratelimit-requests-reset': '2026-01-01T12:00:01Z',
      'anthropic-ratelimit-tokens-limit': '80000',
      'anthropic-ratelimit-tokens-remaining': '79000',
      'anthropic-ratelimit-tokens-reset': '2026-01-01T12:00:30.250Z',
      'anthropic-ratelimit-input-tokens-limit': '40000',
      'anthropic-ratelimit-input-tokens-remaining': '39500',
      'anthropic-ratelimit-input-tokens-reset': '2026-01-01T12:00:02+00:00',
      'anthropic-ratelimit-output-tokens-limit': '8000',
      'anthropic-ratelimit-output-tokens-remaining': '7500',
      'anthropic-ratelimit-output-tokens-reset': 'next tuesday',
    });
    expect(info.style).toBe('anthropic');
    expect(info.policies.map((p) => [p.name, p.tokens, p.quota, p.remaining, p.resetAt])).toEqual([
      ['requests', false, 50, 49, NOW + 750],
      ['tokens', true, 80000, 79000, NOW + 30_000],
      ['input-tokens', true, 40000, 39500, NOW + 1750],
      ['output-tokens', true, 8000, 7500, undefined],
    ]);
  });

  it("reads a reset against the response's Date: a skewed clock cancels out", () => {
    const info = parse({
      Date: 'Thu, 01 Jan 2026 13:00:00 GMT',
      'anthropic-ratelimit-tokens-remaining': '0',
      'anthropic-ratelimit-tokens-reset': '2026-01-01T13:00:10Z',
    });
    expect(info.policies[0]!.resetAt).toBe(NOW + 10_000);
  });
});

describe('pacing by tokens with estimate', () => {
  const tokenServer = (time: VirtualTime) =>
    scripted(time, (n) => ({
      headers: {
        'x-ratelimit-limit-tokens': '1000',
        'x-ratelimit-remaining-tokens': String(Math.max(0, 1000 - 400 * n)),
        'x-ratelimit-reset-tokens': '10s',
      },
    }));

  it('a token policy counts each request at its estimate', async () => {
    const time = new VirtualTime(EPOCH);
    const server = tokenServer(time);
    const api = pacedFetch(server.fetch, { ...virtual(time), estimate: () => 400 });
    await time.run(Promise.all(Array.from({ length: 3 }, () => api('https://a.test/v1/x'))));
    // 600 left after the first: one more of 400 fits, the third waits for the reset.
    expect(server.sent.map((s) => s.at - EPOCH)).toEqual([0, 0, 10_000]);
  });

  it('without estimate a token policy does not pace', async () => {
    const time = new VirtualTime(EPOCH);
    const server = tokenServer(time);
    const api = pacedFetch(server.fetch, virtual(time));
    await time.run(Promise.all(Array.from({ length: 3 }, () => api('https://a.test/v1/x'))));
    expect(server.sent.map((s) => s.at - EPOCH)).toEqual([0, 0, 0]);
  });

  it('estimate gets a Request of the call with its body; the call still sends its own', async () => {
    const time = new VirtualTime(EPOCH);
    const bodies: string[] = [];
    const seen: string[] = [];
    const fetchFn = async (_input: string, init?: RequestInit) => {
      seen.push(String(init?.body));
      return new Response('ok');
    };
    const api = pacedFetch(fetchFn, {
      ...virtual(time),
      estimate: async (request) => {
        bodies.push(`${request.method} ${await request.text()}`);
        return 1;
      },
    });
    await api('https://a.test/v1/x', { method: 'POST', body: '{"max_tokens":5}' });
    expect(bodies).toEqual(['POST {"max_tokens":5}']);
    expect(seen).toEqual(['{"max_tokens":5}']);
  });

  it('a 429 without Retry-After with tokens left is returned, not taken as never admitted', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({
      status: 429,
      headers: {
        'x-ratelimit-remaining-requests': '50',
        'x-ratelimit-remaining-tokens': '50',
        'x-ratelimit-reset-tokens': '1s',
      },
    }));
    const api = pacedFetch(server.fetch, { ...virtual(time), estimate: () => 100 });
    expect((await time.run(api('https://a.test/v1/x'))).status).toBe(429);
  });

  it("a 429 past maxWait names OpenAI's error.type as the policy", async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({
      status: 429,
      headers: {
        'content-type': 'application/json',
        'x-ratelimit-remaining-requests': '50',
        'x-ratelimit-remaining-tokens': '50',
        'retry-after-ms': '90000',
      },
      body: JSON.stringify({ error: { type: 'tokens', code: 'rate_limit_exceeded' } }),
    }));
    const api = pacedFetch(server.fetch, { ...virtual(time), maxWait: 60_000 });
    const error = await time.run(api('https://a.test/v1/x').catch((e: unknown) => e));
    expect(error).toMatchObject({ retryAfterMs: 90_000, policy: 'tokens' });
  });

  it.each([
    ['NaN', Number.NaN],
    ['a negative number', -1],
    ['a string', '5'],
  ])('an estimate of %s rejects the call, unsent', async (_what, value) => {
    let sent = 0;
    const api = pacedFetch(
      async (_input: string) => {
        sent++;
        return new Response('ok');
      },
      { estimate: () => value as number },
    );
    await expect(api('https://a.test/x')).rejects.toThrow(/"estimate" returned/);
    expect(sent).toBe(0);
  });
});

describe('the test server speaks OpenAI reset form', () => {
  it.each([
    [360_000, '6m0s'],
    [1500, '1.5s'],
    [20, '20ms'],
  ])('%d ms is %s', (ms, text) => {
    expect(openAiReset(ms)).toBe(text);
    expect(openAiDuration(text)).toBe(ms);
  });
});
