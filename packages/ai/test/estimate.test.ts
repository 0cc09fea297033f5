// The estimate's rules (docs/guide/ai.md, "The estimate"), each one a test.
import { estimateTokens } from '@sluice/ai';

const user = (content: unknown) => ({ role: 'user', content });

describe('estimateTokens', () => {
  it('counts about 4 characters a token plus a per-message overhead, and 1024 output tokens by default', async () => {
    const text = 'x'.repeat(400); // 100 tokens
    const one = await estimateTokens({ messages: [user(text)] });
    const two = await estimateTokens({ messages: [user(text), user(text)] });
    expect(two - one).toBe(100 + 4); // a second message: its text and its overhead
    expect(one).toBe(100 + 4 * 2 + 1024);
  });

  it('takes the largest declared output cap of max_tokens, max_completion_tokens, max_output_tokens', async () => {
    const base = { messages: [user('hi')] };
    const input = (await estimateTokens({ ...base, max_tokens: 0 })) - 0;
    expect(await estimateTokens({ ...base, max_tokens: 1, max_completion_tokens: 10_000 })).toBe(
      input + 10_000,
    );
    expect(await estimateTokens({ input: 'hi', max_output_tokens: 7 })).toBe(
      (await estimateTokens({ input: 'hi', max_output_tokens: 0 })) + 7,
    );
    expect(await estimateTokens(base, { output: 50 })).toBe(input + 50);
  });

  it('counts the system prompt (Anthropic system, Responses instructions, system messages)', async () => {
    const plain = await estimateTokens({ messages: [user('hi')], max_tokens: 10 });
    const system = 'y'.repeat(800); // 200 tokens
    expect(await estimateTokens({ system, messages: [user('hi')], max_tokens: 10 })).toBe(
      plain + 200 + 4,
    );
    expect(
      await estimateTokens({
        messages: [{ role: 'system', content: system }, user('hi')],
        max_tokens: 10,
      }),
    ).toBe(plain + 200 + 4);
    const responses = await estimateTokens({ input: 'hi', max_output_tokens: 10 });
    expect(await estimateTokens({ instructions: system, input: 'hi', max_output_tokens: 10 })).toBe(
      responses + 200 + 4,
    );
  });

  it('counts the tools as the JSON the provider receives', async () => {
    const tools = [
      {
        type: 'function',
        function: { name: 'weather', description: 'd'.repeat(400), parameters: { type: 'object' } },
      },
    ];
    const plain = await estimateTokens({ messages: [user('hi')], max_tokens: 0 });
    const withTools = await estimateTokens({ messages: [user('hi')], tools, max_tokens: 0 });
    expect(withTools - plain).toBe(Math.ceil((JSON.stringify(tools).length + 2) / 4) - 1);
  });

  it('counts an image a fixed amount, whatever its data (OpenAI, Responses and Anthropic parts)', async () => {
    const text = { type: 'text', text: 'what is this?' };
    const parts = [
      { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(100_000)}` } },
      { type: 'input_image', image_url: 'https://example.com/cat.png' },
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(50_000) },
      },
    ];
    const plain = await estimateTokens({ messages: [user([text])], max_tokens: 0 });
    for (const image of parts) {
      expect(await estimateTokens({ messages: [user([text, image])], max_tokens: 0 })).toBe(
        plain + 1600,
      );
      expect(
        await estimateTokens({ messages: [user([text, image])], max_tokens: 0 }, { image: 85 }),
      ).toBe(plain + 85);
    }
  });

  it('uses a tokenizer when given one', async () => {
    const seen: string[] = [];
    const tokenizer = (s: string) => {
      seen.push(s);
      return 7;
    };
    const n = await estimateTokens(
      { system: 'be brief', messages: [user('hello')], max_tokens: 3 },
      { tokenizer },
    );
    expect(seen).toEqual(['be brief', 'hello']);
    expect(n).toBe(7 + 7 + 4 * 3 + 3);
  });

  it('reads a fetch Request without consuming its body', async () => {
    const body = { messages: [user('x'.repeat(40))], max_tokens: 5 };
    const req = new Request('http://gw/v1/chat/completions', {
      method: 'POST',
      body: JSON.stringify(body),
    });
    expect(await estimateTokens(req)).toBe(await estimateTokens(body));
    expect(await req.json()).toEqual(body);
    const notJson = new Request('http://gw/', { method: 'POST', body: 'nope' });
    expect(await estimateTokens(notJson)).toBe(4 + 1024);
  });

  it('refuses bad options naming the field', async () => {
    await expect(estimateTokens({}, { output: -1 })).rejects.toThrow('estimate.output');
    await expect(estimateTokens({}, { tokenizer: 3 as never })).rejects.toThrow(
      'estimate.tokenizer',
    );
  });
});
