// meterStream (docs/guide/ai.md, "Streams"): the body unchanged chunk by chunk, the charge
// settled from the final usage of each provider's stream, the round trips counted.

import { meterStream, tokenLimiter } from '@sluice/ai';
import { MemoryStore, type Store } from '@sluice/core';

const T0 = 1_700_000_000_000;
const enc = new TextEncoder();

function setup(store: Store = new MemoryStore()) {
  const limiter = tokenLimiter({
    limit: '100000/min',
    store,
    clock: () => T0,
    estimate: { perMessage: 0 },
  });
  const peek = async () =>
    100_000 - (await limiter.charge({ max_tokens: 0 }, { key: 'k' })).decisions[0]!.remaining;
  const charge = () =>
    limiter.charge({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2000 }, { key: 'k' });
  return { peek, charge };
}

function upstream(chunks: (string | Uint8Array)[], init: ResponseInit = {}): Response {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(typeof chunk === 'string' ? enc.encode(chunk) : chunk);
      c.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' }, ...init });
}

async function chunksOf(res: Response): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = res.body!.getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done) return out;
    out.push(next.value);
  }
}

const sse = (events: object[], done = true) =>
  events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');

/** `text` cut into pieces of `size` bytes: events split across chunks. */
const cut = (text: string, size: number) => {
  const bytes = enc.encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
};

const openaiStream = sse([
  {
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content: 'Olá — ' } }],
    usage: null,
  },
  {
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content: 'mundo 🌍' } }],
    usage: null,
  },
  {
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [],
    usage: { prompt_tokens: 31, completion_tokens: 420, total_tokens: 451 },
  },
]);

describe('meterStream', () => {
  it('passes the body byte for byte, chunk by chunk, with the same status and headers', async () => {
    const { charge } = setup();
    const pieces = cut(openaiStream, 7); // multi-byte characters split across chunks too
    const res = meterStream(
      upstream(pieces, {
        status: 200,
        headers: { 'content-type': 'text/event-stream', 'x-request-id': 'r1' },
      }),
      await charge(),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('r1');
    expect(await chunksOf(res)).toEqual(pieces);
  });

  it('settles from the last Chat Completions chunk (stream_options.include_usage)', async () => {
    const { charge, peek } = setup();
    const c = await charge();
    expect(await peek()).toBe(c.upfront);
    await chunksOf(meterStream(upstream(cut(openaiStream, 13)), c));
    expect(await peek()).toBe(451);
  });

  it('#34728: settles a Responses stream to its real usage (response.completed)', async () => {
    const { charge, peek } = setup();
    const stream = [
      'event: response.created\ndata: {"type":"response.created","response":{"id":"r","usage":null}}\n\n',
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hi"}\n\n',
      `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { id: 'r', usage: { input_tokens: 900, output_tokens: 1500, total_tokens: 2400 } } })}\n\n`,
    ];
    await chunksOf(meterStream(upstream(stream), await charge()));
    expect(await peek()).toBe(2400);
  });

  it('settles an Anthropic stream from message_start and message_delta, the cache counted', async () => {
    const { charge, peek } = setup();
    const stream = [
      `event: message_start\r\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'm', usage: { input_tokens: 25, cache_creation_input_tokens: 100, cache_read_input_tokens: 300, output_tokens: 1 } } })}\r\n\r\n`,
      'event: content_block_delta\r\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"Hi"}}\r\n\r\n',
      `event: message_delta\r\ndata: ${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 77 } })}\r\n\r\n`,
      'event: message_stop\r\ndata: {"type":"message_stop"}\r\n\r\n',
    ];
    await chunksOf(meterStream(upstream(stream), await charge()));
    expect(await peek()).toBe(25 + 100 + 300 + 77);
  });

  it("settles from a JSON body's usage", async () => {
    const { charge, peek } = setup();
    const json = JSON.stringify({
      id: 'x',
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 8 },
    });
    const res = upstream(cut(json, 5), { headers: { 'content-type': 'application/json' } });
    expect(await meterStream(res, await charge()).text()).toBe(json);
    expect(await peek()).toBe(20);
  });

  it('a non-2xx answer cancels the charge; its body passes', async () => {
    const { charge, peek } = setup();
    const res = meterStream(upstream(['{"error":"overloaded"}'], { status: 529 }), await charge());
    expect(res.status).toBe(529);
    expect(await res.text()).toBe('{"error":"overloaded"}');
    expect(await peek()).toBe(0);
  });

  it('no usage keeps the upfront charge, with one warning per process', async () => {
    const { charge, peek } = setup();
    const warn = jest.fn();
    const a = await charge();
    await chunksOf(meterStream(upstream([sse([{ choices: [] }])]), a, { logger: { warn } }));
    const b = await charge();
    await chunksOf(meterStream(upstream([sse([{ choices: [] }])]), b, { logger: { warn } }));
    expect(await peek()).toBe(a.upfront + b.upfront);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/include_usage/);
  });

  it('a cancel mid-stream keeps the upfront charge', async () => {
    const { charge, peek } = setup();
    const c = await charge();
    const res = meterStream(upstream(cut(openaiStream, 10)), c);
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(await peek()).toBe(c.upfront);
  });

  it('costs one store call to charge and one to settle, nothing else', async () => {
    const inner = new MemoryStore();
    const calls: string[] = [];
    const store = new Proxy(inner, {
      get(t, p) {
        const v = Reflect.get(t, p, t);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (typeof p === 'string' && ['consume', 'consumeAll', 'refund', 'reserve'].includes(p))
            calls.push(p);
          return v.apply(t, args);
        };
      },
    });
    const { charge } = setup(store);
    await chunksOf(meterStream(upstream(cut(openaiStream, 9)), await charge()));
    expect(calls).toEqual(['consume', 'refund']);
  });
});
