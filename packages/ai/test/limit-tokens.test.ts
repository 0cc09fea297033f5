// limitTokens: an OpenAI-compatible gateway on a fetch handler, answered as OpenAI answers.
import { limitTokens } from '@sluice/ai';
import { openaiDuration } from '../src/openai-headers.js';

const T0 = 1_700_000_000_000;
const enc = new TextEncoder();

/** An upstream that answers as OpenAI does, recording what it received. */
function upstream(usage = { prompt_tokens: 40, completion_tokens: 160 }) {
  const seen: Record<string, unknown>[] = [];
  const handler = async (req: Request) => {
    const body = (await req.json()) as Record<string, unknown>;
    seen.push(body);
    if (body.stream === true) {
      const include = (body.stream_options as { include_usage?: boolean } | undefined)
        ?.include_usage;
      const events = [{ choices: [{ delta: { content: 'hi' } }], usage: null }];
      if (include) events.push({ choices: [], usage } as never);
      const text = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
      return new Response(enc.encode(text), { headers: { 'content-type': 'text/event-stream' } });
    }
    return Response.json({ id: 'c', choices: [], usage });
  };
  return { seen, handler };
}

const post = (body: unknown, headers: Record<string, string> = {}) =>
  new Request('http://gw/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o',
  messages: [{ role: 'user', content: 'Hi' }],
  max_tokens: 300,
  ...extra,
});
const team = (req: Request) => req.headers.get('x-team') ?? 'none';

describe('limitTokens', () => {
  it('sets stream_options.include_usage on streamed Chat Completions, and settles from it', async () => {
    const { seen, handler } = upstream();
    const gw = limitTokens(handler, { limit: '1000/min', key: team, clock: () => T0 });
    const res = await gw(post(chat({ stream: true, stream_options: { foo: 1 } })));
    const text = await res.text();
    expect(text).toContain('"usage":{"prompt_tokens":40');
    expect(seen[0]!.stream_options).toEqual({ foo: 1, include_usage: true });
    await (await gw(post(chat()))).text(); // not streamed: passed as it was; settled once read
    expect(seen[1]).toEqual(chat());
    const after = await gw(post(chat({ max_tokens: 0 })));
    const upfront = 1000 - 200 - 200 - Number(after.headers.get('x-ratelimit-remaining-tokens'));
    expect(upfront).toBeGreaterThan(0); // the third call's own estimate; the first two settled to 200 each
    expect(upfront).toBeLessThan(20);
  });

  it("sets OpenAI's x-ratelimit headers on every answer", async () => {
    const { handler } = upstream();
    const gw = limitTokens(handler, {
      limit: '6000/min',
      requests: '10/min',
      key: team,
      clock: () => T0,
    });
    const res = await gw(post(chat()));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit-tokens')).toBe('6000');
    const remaining = Number(res.headers.get('x-ratelimit-remaining-tokens'));
    expect(remaining).toBeLessThan(6000 - 300);
    // GCRA refills 100 tokens a second: the charge is back in (6000 - remaining) / 100 s.
    expect(res.headers.get('x-ratelimit-reset-tokens')).toBe(
      openaiDuration(((6000 - remaining) * 60_000) / 6000),
    );
    expect(res.headers.get('x-ratelimit-limit-requests')).toBe('10');
    expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('9');
    expect(res.headers.get('x-ratelimit-reset-requests')).toBe('6s');
  });

  it('answers a denial 429 as OpenAI does, with type tokens or requests', async () => {
    const { handler, seen } = upstream();
    const gw = limitTokens(handler, {
      limit: '500/min',
      requests: '1/min',
      key: team,
      clock: () => T0,
    });
    expect((await gw(post(chat(), { 'x-team': 'a' }))).status).toBe(200);
    const byRequests = await gw(post(chat({ max_tokens: 1 }), { 'x-team': 'a' }));
    expect(byRequests.status).toBe(429);
    expect(byRequests.headers.get('retry-after')).toBe('60');
    expect(byRequests.headers.get('retry-after-ms')).toBe('60000');
    expect(await byRequests.json()).toEqual({
      error: {
        message: 'Rate limit reached for requests. Please try again in 1m0s.',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
    const tokensOnly = limitTokens(handler, { limit: '500/min', key: team, clock: () => T0 });
    await tokensOnly(post(chat({ max_tokens: 450 }), { 'x-team': 'team-secret-b' }));
    const byTokens = await tokensOnly(
      post(chat({ max_tokens: 450 }), { 'x-team': 'team-secret-b' }),
    );
    expect(byTokens.status).toBe(429);
    const error = ((await byTokens.json()) as { error: { type: string; message: string } }).error;
    expect(error.type).toBe('tokens');
    expect(error.message).not.toContain('team-secret-b'); // no key text
    expect(Number(byTokens.headers.get('retry-after-ms'))).toBeGreaterThan(0);
    expect(seen).toHaveLength(2); // the denied calls never reached the upstream
  });

  it('keys by client IP when no key is given, and fails (never unlimited) without one', async () => {
    const { handler } = upstream();
    const gw = limitTokens(handler, {
      limit: '400/min',
      ip: (req) => req.headers.get('x-ip') ?? undefined,
      clock: () => T0,
    });
    expect((await gw(post(chat(), { 'x-ip': '2001:db8::1' }))).status).toBe(200);
    expect((await gw(post(chat(), { 'x-ip': '2001:db8::2' }))).status).toBe(429); // the same /64
    expect((await gw(post(chat(), { 'x-ip': '203.0.113.9' }))).status).toBe(200);
    await expect(gw(post(chat()))).rejects.toThrow(/client IP/);
  });

  it('passes requests without a JSON body uncharged, and gives the charge back when the handler throws', async () => {
    let fail = true;
    const gw = limitTokens(
      async (req) => {
        if (req.method === 'GET') return Response.json({ data: [] });
        if (fail) throw new Error('upstream down');
        return Response.json({ usage: { prompt_tokens: 1, completion_tokens: 1 } });
      },
      { limit: '400/min', key: team, clock: () => T0 },
    );
    const models = await gw(new Request('http://gw/v1/models'));
    expect(models.headers.get('x-ratelimit-limit-tokens')).toBeNull();
    await expect(gw(post(chat()))).rejects.toThrow('upstream down');
    fail = false;
    const ok = await gw(post(chat({ max_tokens: 0 })));
    expect(Number(ok.headers.get('x-ratelimit-remaining-tokens'))).toBeGreaterThan(390);
  });

  it('refuses to be built without a key or an ip', () => {
    expect(() => limitTokens(upstream().handler, { limit: '1/min' })).toThrow(/"key"/);
  });

  it.each([
    [20, '20ms'],
    [1500, '1.5s'],
    [360_000, '6m0s'],
    [3_723_000, '1h2m3s'],
  ])('writes %i ms as %s (OpenAI reset form)', (ms, text) => {
    expect(openaiDuration(ms)).toBe(text);
  });
});
