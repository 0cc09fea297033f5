import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Limit, MemoryStore } from '@sluice/core';
import { useSluice } from '@sluice/graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { ITEMS_SDL, itemResolvers } from './schemas.js';

function server(
  available: { count: number },
  extra: Parameters<typeof useSluice>[0] | object = {},
) {
  const now = { ms: 1_700_000_000_000 };
  const store = new MemoryStore();
  const yoga = createYoga({
    schema: createSchema({ typeDefs: ITEMS_SDL, resolvers: itemResolvers(available) }),
    plugins: [
      useSluice({
        limit: Limit.perHour(1000).named('points'),
        costModel: 'github-nodes',
        key: () => 'tenant-1',
        clock: () => now.ms,
        store,
        ...extra,
      }),
    ],
    logging: false,
  });
  const query = async (first: number) => {
    const res = await yoga.fetch('http://yoga/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `query($n: Int!) { items(first: $n) { nodes { id } } }`,
        variables: { n: first },
      }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  return { query, now, store };
}

describe('useSluice on GraphQL Yoga', () => {
  it('admits a 150-point query 6 times on 1,000 points/h; the 7th errors with extensions.retryAfter', async () => {
    const { query } = server({ count: 1000 });
    for (let i = 1; i <= 6; i++) {
      const r = await query(150);
      expect(r.status).toBe(200);
      expect(r.body.data.items.nodes).toHaveLength(150);
      expect(r.body.extensions.cost).toEqual({
        requested: 150,
        actual: 150,
        throttleStatus: {
          maximumAvailable: 1000,
          currentlyAvailable: 1000 - 150 * i,
          restoreRate: 0.277778,
        },
      });
    }
    const denied = await query(150);
    // 100 points left; 50 more take 50/1000 of an hour = 180 s to restore
    expect(denied.status).toBe(429);
    expect(denied.headers.get('retry-after')).toBe('180');
    expect(denied.body.data).toBeUndefined();
    expect(denied.body.errors).toHaveLength(1);
    expect(denied.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfter: 180,
    });
    expect(denied.body.errors[0].message).toMatch(/costs 150 points, retry in 180 seconds/);
  });

  it('settles to the actual cost: requested 150 / actual 40 gives back exactly 110', async () => {
    const available = { count: 40 };
    const { query, now } = server(available);
    const first = await query(150);
    expect(first.body.extensions.cost).toMatchObject({ requested: 150, actual: 40 });
    expect(first.body.extensions.cost.throttleStatus.currentlyAvailable).toBe(960); // 1000 - 150 + 110
    // Still exact later on the refilling bucket: 24 points per 86.4 s at 1000/h
    now.ms += 86_400;
    available.count = 1000;
    const second = await query(100);
    expect(second.body.extensions.cost.throttleStatus.currentlyAvailable).toBe(960 + 24 - 100);
  });

  it('writes draft-8 headers with qu="points" when asked', async () => {
    const { query } = server({ count: 5 }, { headers: 'draft-8' });
    const r = await query(20);
    expect(r.headers.get('ratelimit-policy')).toBe('"points";q=1000;qu="points";w=3600');
    expect(r.headers.get('ratelimit')).toBe('"points";r=995;t=18');
    const big = await query(2000);
    expect(big.status).toBe(429);
    expect(big.body.errors[0].extensions.code).toBe('QUERY_TOO_COSTLY');
  });

  it('a query above the whole budget gets no Retry-After (waiting will not help), never -1', async () => {
    for (const headers of [undefined, 'draft-8']) {
      const { query } = server({ count: 5 }, headers === undefined ? {} : { headers });
      const big = await query(2000);
      expect(big.status).toBe(429);
      expect(big.headers.get('retry-after')).toBeNull();
      const ext = big.body.errors[0].extensions;
      expect(ext.code).toBe('QUERY_TOO_COSTLY');
      expect(ext.retryAfter).toBeUndefined();
      expect(Object.keys(ext.http?.headers ?? {})).not.toContain('Retry-After');
    }
  });

  it('keys by the Node request IP when no key is given, and fails closed without any subject', async () => {
    const plugin = () => useSluice({ limit: Limit.perHour(3), store: new MemoryStore() });
    const schema = () =>
      createSchema({ typeDefs: ITEMS_SDL, resolvers: itemResolvers({ count: 1 }) });
    // On Node, Yoga's context carries `req`: its socket address is the subject.
    const http = createServer(
      createYoga({ schema: schema(), plugins: [plugin()], logging: false }),
    );
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql?query=%7Bshop%7Bname%7D%7D`;
    try {
      const first = await fetch(url);
      expect(first.status).toBe(200); // Shop costs 3 (@cost): the whole budget
      expect(((await first.json()) as any).extensions.cost.throttleStatus.currentlyAvailable).toBe(
        0,
      );
      expect((await fetch(url)).status).toBe(429);
    } finally {
      await new Promise((r) => http.close(r));
    }
    // Through fetch alone there is no IP and no user: an error, never an unlimited query.
    const bare = createYoga({ schema: schema(), plugins: [plugin()], logging: false });
    const body = (await (
      await bare.fetch('http://yoga/graphql?query=%7Bshop%7Bname%7D%7D')
    ).json()) as any;
    expect(body.data).toBeUndefined();
    expect(body.errors[0].message).toMatch(/no subject/);
  });

  it('refuses unknown options and bad values at creation', () => {
    expect(() => useSluice({ limit: '10/s', windowMs: 1 } as never)).toThrow(/windowMs/);
    expect(() => useSluice({ limit: 'throttle:nope' })).toThrow(
      expect.objectContaining({ option: 'limit' }),
    );
    expect(() => useSluice({ limit: '10/s', headers: 'draft-99' as never })).toThrow(
      expect.objectContaining({ option: 'headers' }),
    );
  });
});
