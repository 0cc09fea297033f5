import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { Limit, MemoryStore } from '@sluice/core';
import { useSluice } from '@sluice/graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { DeliveredData, settledStream } from '../src/incremental.js';
import { ITEMS_SDL, itemResolvers } from './schemas.js';

/** A Yoga server with @defer / @stream on a 1,000 points/h budget (GitHub node counts). */
function server(resolvers: object) {
  const yoga = createYoga({
    schema: createSchema({ typeDefs: ITEMS_SDL, resolvers: resolvers as never }),
    plugins: [
      useDeferStream(),
      useSluice({
        limit: Limit.perHour(1000).named('points'),
        costModel: 'github-nodes',
        key: () => 'tenant-1',
        clock: () => 1_700_000_000_000,
        store: new MemoryStore(),
        headers: 'draft-8',
      }),
    ],
    logging: false,
  });
  const post = (query: string, variables: object = {}) =>
    yoga.fetch('http://yoga/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query, variables }),
    });
  /** Points left now: a query of cost 0 reads them in `extensions.cost`. */
  const available = async () => {
    const res = await yoga.fetch('http://yoga/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ items(first: 0) { nodes { id } } }' }),
    });
    const body = (await res.json()) as any;
    expect(body.extensions.cost.requested).toBe(0);
    return body.extensions.cost.throttleStatus.currentlyAvailable as number;
  };
  return { post, available };
}

/** The `next` events of a server-sent event stream, parsed. */
function events(text: string): any[] {
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('event: next'))
    .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
}

describe('useSluice with @defer / @stream (incremental delivery)', () => {
  it('settles a deferred query requested 150, actual 40 once the last payload is delivered: exactly 110 back', async () => {
    const { post, available } = server(itemResolvers({ count: 40 }));
    const res = await post('query($n: Int!) { items(first: $n) { ... @defer { nodes { id } } } }', {
      n: 150,
    });
    // The headers leave before the end: the state after reserving 150
    expect(res.headers.get('ratelimit')).toBe('"points";r=850;t=540');
    const payloads = events(await res.text());
    expect(payloads.length).toBeGreaterThanOrEqual(2);
    expect(payloads[0].data).toEqual({ items: {} });
    expect(payloads[0].extensions?.cost).toBeUndefined(); // not settled yet
    const last = payloads[payloads.length - 1];
    expect(last.hasNext).toBe(false);
    expect(last.extensions.cost).toEqual({
      requested: 150,
      actual: 40,
      throttleStatus: {
        maximumAvailable: 1000,
        currentlyAvailable: 960, // 1000 - 150 + 110
        restoreRate: 0.277778,
      },
    });
    expect(await available()).toBe(960);
  });

  it('settles @stream items as delivered', async () => {
    const { post, available } = server(itemResolvers({ count: 30 }));
    const res = await post(
      'query($n: Int!) { items(first: $n) { nodes @stream(initialCount: 10) { id } } }',
      { n: 100 },
    );
    const payloads = events(await res.text());
    const last = payloads[payloads.length - 1];
    expect(last.extensions.cost).toMatchObject({ requested: 100, actual: 30 });
    expect(await available()).toBe(970);
  });

  it('settles a cancelled stream on what was delivered until then', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    // 5 items, then nothing until the test ends: the client cancels in between
    async function* nodes() {
      for (let i = 0; i < 5; i++) yield { id: String(i), price: i };
      await released;
    }
    const { post, available } = server({
      Query: {
        items: (_: unknown, { first }: { first: number }) => ({ nodes: first ? nodes() : [] }),
      },
    });
    try {
      const res = await post(
        'query($n: Int!) { items(first: $n) { nodes @stream(initialCount: 0) { id } } }',
        { n: 150 },
      );
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      let seen = 0;
      while (seen < 5) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended early');
        text += decoder.decode(value, { stream: true });
        seen = events(text).reduce(
          (n, p) => n + (p.incremental ?? []).reduce((m: number, i: any) => m + i.items.length, 0),
          0,
        );
      }
      expect(await available()).toBe(850); // still reserved while streaming
      // not awaited: the source's return() waits for the resolver, which waits for `release`
      void reader.cancel().catch(() => undefined);
      // The cancellation reaches the plugin asynchronously: 145 given back once it does
      for (let i = 0; i < 200 && (await available()) !== 995; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await available()).toBe(995);
    } finally {
      release();
    }
  }, 30_000);
});

describe('DeliveredData (incremental payloads merged)', () => {
  it('deep-merges deferred data at its path and streamed items at their index, never changing a payload', () => {
    const d = new DeliveredData();
    const initial = { data: { a: { b: [{ x: 1 }], c: 1 } }, hasNext: true };
    d.add(initial);
    d.add({ incremental: [{ data: { y: 2 }, path: ['a', 'b', 0] }], hasNext: true });
    d.add({ incremental: [{ items: [{ x: 2 }, { x: 3 }], path: ['a', 'b', 1] }], hasNext: false });
    expect(d.data).toEqual({ a: { b: [{ x: 1, y: 2 }, { x: 2 }, { x: 3 }], c: 1 } });
    expect(initial.data).toEqual({ a: { b: [{ x: 1 }], c: 1 } });
  });

  it("reads graphql-js 17's pending ids: data at a pending path, items appended", () => {
    const d = new DeliveredData();
    d.add({ data: { list: [1] }, pending: [{ id: '0', path: ['list'] }], hasNext: true });
    d.add({
      pending: [{ id: '1', path: [] }],
      incremental: [
        { id: '0', items: [2, 3] },
        { id: '1', data: { more: true } },
      ],
      hasNext: false,
    });
    expect(d.data).toEqual({ list: [1, 2, 3], more: true });
  });

  it('settledStream settles once: on the last payload, else when stopped or failed', async () => {
    async function* three() {
      yield { data: { n: 1 }, hasNext: true };
      yield { hasNext: true };
      yield { hasNext: false };
    }
    const calls: unknown[] = [];
    const settle = (d: DeliveredData, last: unknown) => {
      calls.push([d.data, last]);
    };
    for await (const _ of settledStream(three(), settle));
    expect(calls).toEqual([[{ n: 1 }, { hasNext: false }]]);

    calls.length = 0;
    const s = settledStream(three(), settle);
    await s.next();
    await s.return!();
    await s.return!();
    expect(calls).toEqual([[{ n: 1 }, undefined]]);

    calls.length = 0;
    async function* failing() {
      yield { data: { n: 2 }, hasNext: true };
      throw new Error('boom');
    }
    const f = settledStream(failing(), settle);
    await f.next();
    await expect(f.next()).rejects.toThrow('boom');
    expect(calls).toEqual([[{ n: 2 }, undefined]]);
  });
});
