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

  it('a query above the whole budget gets no Retry-After (waiting will not help), never -1', async () => {
    const { query } = server({ count: 5 });
    const big = await query(2000);
    expect(big.http.status).toBe(429);
    expect(big.http.headers.get('retry-after')).toBeUndefined();
    expect(big.result.errors[0].extensions.code).toBe('QUERY_TOO_COSTLY');
    expect(big.result.errors[0].extensions.retryAfter).toBeUndefined();
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

  // Apollo delivers @defer / @stream with graphql 17 only: its own testing hook stands in for
  // graphql 17's incremental execution (the request still goes through parse, validation and
  // the plugin like any other).
  function incremental(later: (n: number) => AsyncGenerator<object>) {
    const store = new MemoryStore();
    const plugin = () =>
      sluiceApollo({
        limit: Limit.perHour(1000).named('points'),
        costModel: 'github-nodes',
        clock: () => 1_700_000_000_000,
        store,
        headers: 'draft-8',
      });
    const typeDefs = `directive @defer(label: String, if: Boolean) on INLINE_FRAGMENT ${ITEMS_SDL}`;
    const apollo = new ApolloServer<{ user: { id: string } }>({
      typeDefs,
      plugins: [plugin()],
      __testing_incrementalExecutionResults: {
        initialResult: { data: { items: {} }, hasNext: true },
        subsequentResults: later(40),
      },
    } as never);
    const probe = new ApolloServer<{ user: { id: string } }>({
      typeDefs,
      resolvers: itemResolvers({ count: 0 }),
      plugins: [plugin()],
    });
    const run = async () => {
      const res = await apollo.executeOperation(
        {
          query: 'query($n: Int!) { items(first: $n) { ... @defer { nodes { id } } } }',
          variables: { n: 150 },
        },
        { contextValue: { user: { id: 'u1' } } },
      );
      if (res.body.kind !== 'incremental') throw new Error('expected incremental delivery');
      return { http: res.http, body: res.body };
    };
    const available = async () => {
      const res = await probe.executeOperation(
        { query: '{ items(first: 0) { nodes { id } } }' },
        { contextValue: { user: { id: 'u1' } } },
      );
      return (res.body as any).singleResult.extensions.cost.throttleStatus.currentlyAvailable;
    };
    return { run, available };
  }
  const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(i) }));

  it('settles @defer when the last payload is delivered: requested 150, actual 40 -> exactly 110 back', async () => {
    const { run, available } = incremental(async function* (n) {
      yield { incremental: [{ data: { nodes: ids(n) }, path: ['items'] }], hasNext: false };
    });
    const { http, body } = await run();
    expect(http.headers.get('ratelimit')).toBe('"points";r=850;t=540'); // reserved
    expect(await available()).toBe(850);
    const payloads: any[] = [];
    for await (const p of body.subsequentResults) payloads.push(p);
    expect(payloads[0].extensions.cost).toMatchObject({
      requested: 150,
      actual: 40,
      throttleStatus: { currentlyAvailable: 960 },
    });
    expect(await available()).toBe(960);
  });

  it('settles a stream the client leaves on what was delivered', async () => {
    const { run, available } = incremental(async function* () {
      yield { incremental: [{ data: { nodes: ids(10) }, path: ['items'] }], hasNext: true };
      yield { incremental: [{ data: { nodes: ids(20) }, path: ['items'] }], hasNext: false };
    });
    const { body } = await run();
    const it = body.subsequentResults[Symbol.asyncIterator]();
    await it.next();
    await it.return!();
    expect(await available()).toBe(990);
  });
});
