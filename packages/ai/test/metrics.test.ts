// tokenLimiter's OpenTelemetry metrics on the SDK's in-memory exporter: calls by result and
// model, input and output tokens up front and settled, never the key.

import { limitTokens, SluiceConfigError, tokenLimiter } from '@sluice/ai';
import { otelCapture } from '@sluice/test-kit';

const T0 = 1_700_000_000_000;
const chat = (model: string | undefined, max_tokens: number) => ({
  ...(model === undefined ? {} : { model }),
  messages: [{ role: 'user', content: 'x'.repeat(40) }], // 10 tokens + 8 of framing
  max_tokens,
});
const tokens = (type: string, phase: string, model: string) =>
  `sluice.ai.tokens{gen_ai.request.model=${model},gen_ai.token.type=${type},sluice.ai.phase=${phase}}`;
const calls = (result: string, model: string) =>
  `sluice.ai.charges{gen_ai.request.model=${model},sluice.result=${result}}`;

describe('tokenLimiter metrics', () => {
  const capture = otelCapture();
  afterAll(() => capture.shutdown());

  it('counts calls by result, and input and output tokens upfront and settled, by model', async () => {
    const limiter = tokenLimiter({
      limit: '1000/min',
      metrics: { meterProvider: capture.meterProvider },
      clock: () => T0,
    });
    const a = await limiter.charge(chat('gpt-4o', 100), { key: 'team-secret-a' });
    await a.settle({ prompt_tokens: 17, completion_tokens: 40 });
    const b = await limiter.charge(chat('gpt-4o', 200), { key: 'team-secret-a' });
    await b.settle(undefined); // no usage: the upfront charge stays, nothing settled
    const c = await limiter.charge(chat(undefined, 50), { key: 'team-secret-b' });
    await c.settle({ input_tokens: 20, output_tokens: 5, cache_read_input_tokens: 3 });
    // 2,000 on a 1,000 key: capped at 1,000 and admitted into debt; then the next is limited.
    const big = await limiter.charge(chat('mini', 1982), { key: 'team-secret-c' });
    expect(big.upfront).toBe(1000);
    const refused = await limiter.charge(chat('mini', 10), { key: 'team-secret-c' });
    expect(refused.allowed).toBe(false);
    await big.cancel();

    const m = await capture.read();
    expect(m.units['sluice.ai.tokens']).toBe('{token}');
    expect(m.units['sluice.ai.charges']).toBe('{call}');
    expect(m.sums).toEqual({
      [calls('allowed', 'gpt-4o')]: 2,
      [calls('allowed', '(none)')]: 1,
      [calls('allowed', 'mini')]: 1,
      [calls('limited', 'mini')]: 1,
      [tokens('input', 'upfront', 'gpt-4o')]: 36,
      [tokens('output', 'upfront', 'gpt-4o')]: 300,
      [tokens('input', 'settled', 'gpt-4o')]: 17,
      [tokens('output', 'settled', 'gpt-4o')]: 40,
      [tokens('input', 'upfront', '(none)')]: 18,
      [tokens('output', 'upfront', '(none)')]: 50,
      [tokens('input', 'settled', '(none)')]: 23,
      [tokens('output', 'settled', '(none)')]: 5,
      // The cap comes off the output: all 18 input tokens, 982 of the 1,982 output.
      [tokens('input', 'upfront', 'mini')]: 18,
      [tokens('output', 'upfront', 'mini')]: 982,
    });
    expect(m.attributes.join(' ')).not.toMatch(/team-secret/);
  });

  it('input and output limits apart: each counted as charged', async () => {
    const local = otelCapture();
    const limiter = tokenLimiter({
      input: '10/min',
      output: '1000/min',
      metrics: { meterProvider: local.meterProvider },
      clock: () => T0,
    });
    await limiter.charge(chat('m', 100), { key: 'k' });
    const m = await local.read();
    expect(m.sums[tokens('input', 'upfront', 'm')]).toBe(10); // 18, capped at the input limit
    expect(m.sums[tokens('output', 'upfront', 'm')]).toBe(100);
    await local.shutdown();
  });

  it("limitTokens' streamed answers are counted settled once their final usage has passed", async () => {
    const local = otelCapture();
    const usage = { prompt_tokens: 12, completion_tokens: 34 };
    const sse = `data: ${JSON.stringify({ choices: [], usage })}\n\ndata: [DONE]\n\n`;
    const gw = limitTokens(
      async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } }),
      {
        limit: '1000/min',
        key: () => 'team-secret',
        metrics: { meterProvider: local.meterProvider },
        clock: () => T0,
      },
    );
    const res = await gw(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...chat('gpt-4o', 100), stream: true }),
      }),
    );
    expect((await local.read()).sums[tokens('output', 'settled', 'gpt-4o')]).toBeUndefined();
    await res.text();
    const m = await local.read();
    expect(m.sums[tokens('input', 'settled', 'gpt-4o')]).toBe(12);
    expect(m.sums[tokens('output', 'settled', 'gpt-4o')]).toBe(34);
    await local.shutdown();
  });

  it('two limiters on one meter add up in one series', async () => {
    const local = otelCapture();
    const options = { limit: '1000/min', metrics: { meterProvider: local.meterProvider } };
    await tokenLimiter(options).charge(chat('m', 10), { key: 'k' });
    await tokenLimiter(options).charge(chat('m', 10), { key: 'k' });
    expect((await local.read()).sums[calls('allowed', 'm')]).toBe(2);
    await local.shutdown();
  });

  it.each([
    ['metrics', 'yes'],
    ['metrics.meterProvider', {}],
    ['metrics.meterProvider', { meterProvider: {} }],
  ])('a bad option is a SluiceConfigError naming %s', (name, metrics) => {
    const make = () => tokenLimiter({ limit: '1000/min', metrics: metrics as never });
    expect(make).toThrow(SluiceConfigError);
    expect(make).toThrow(`"${name}"`);
  });

  it('metrics: false records nothing and loads nothing', async () => {
    const limiter = tokenLimiter({ limit: '1000/min', metrics: false });
    expect((await limiter.charge(chat('m', 10), { key: 'k' })).allowed).toBe(true);
  });
});
