import { ApolloServer } from '@apollo/server';
import { Limit, MemoryStore } from '@sluice/core';
import { sluiceApollo } from '@sluice/graphql';
import { ITEMS_SDL, itemResolvers } from './schemas.js';

function server(available: { count: number }, extra: object = {}) {
  const now = { ms: 1_700_000_000_000 };
  const apollo = new ApolloServer<{ user: { id: string } }>({
    typeDefs: ITEMS_SDL,
    resolvers: itemResolvers(available),
    plugins: [
      sluiceApollo({
        limit: Limit.perHour(1000).named('points'),
        costModel: 'github-nodes',
        clock: () => now.ms,
        store: new MemoryStore(),
        ...extra,
      }),
    ],
  });
  const query = async (first: number, user = 'u1') => {
    const res = await apollo.executeOperation(
      { query: 'query($n: Int!) { items(first: $n) { nodes { id } } }', variables: { n: first } },
      { contextValue: { user: { id: user } } },
    );
    if (res.body.kind !== 'single') throw new Error('expected a single result');
    return { http: res.http, result: res.body.singleResult as any };
  };
  return { query, now };
}

describe('sluiceApollo on Apollo Server', () => {
  it('admits a 150-point query 6 times on 1,000 points/h; the 7th errors with extensions.retryAfter', async () => {
    const { query } = server({ count: 1000 });
    for (let i = 1; i <= 6; i++) {
      const r = await query(150);
      expect(r.result.errors).toBeUndefined();
      expect(r.result.extensions.cost).toMatchObject({
        requested: 150,
        actual: 150,
        throttleStatus: { currentlyAvailable: 1000 - 150 * i },
      });
    }
    const denied = await query(150);
    expect(denied.http.status).toBe(429);
    expect(denied.http.headers.get('retry-after')).toBe('180');
    expect(denied.result.data).toBeUndefined();
    expect(denied.result.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfter: 180,
    });
    // another user (context.user.id) has a budget of its own
    expect((await query(150, 'u2')).result.errors).toBeUndefined();
  });

  it('gives back exactly the difference: requested 150, actual 40 -> 960 available', async () => {
    const { query } = server({ count: 40 });
    const r = await query(150);
    expect(r.result.extensions.cost).toMatchObject({ requested: 150, actual: 40 });
    expect(r.result.extensions.cost.throttleStatus.currentlyAvailable).toBe(960);
  });

  it('writes draft-8 headers with qu="points"', async () => {
    const { query } = server({ count: 3 }, { headers: ['draft-8'] });
    const r = await query(10);
    expect(r.http.headers.get('ratelimit-policy')).toBe('"points";q=1000;qu="points";w=3600');
    expect(r.http.headers.get('ratelimit')).toBe('"points";r=997;t=11');
  });
});
