// The points budget on Redis: the same reserve and settle as on the memory store, exact,
// shared by every server of a fleet.
import { Limit } from '@sluice/core';
import { useSluice } from '@sluice/graphql';
import { RedisStore } from '@sluice/redis';
import { type RedisProcess, startRedis } from '@sluice/test-kit';
import { createSchema, createYoga } from 'graphql-yoga';
import { Redis } from 'ioredis';
import { ITEMS_SDL, itemResolvers } from './schemas.js';

let server: RedisProcess;
let client: Redis;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ port: server.port, host: '127.0.0.1' });
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

function yogaOn(
  store: RedisStore,
  now: { ms: number },
  available: { count: number },
  prefix: string,
) {
  const yoga = createYoga({
    schema: createSchema({ typeDefs: ITEMS_SDL, resolvers: itemResolvers(available) }),
    plugins: [
      useSluice({
        limit: Limit.perHour(1000).named('points'),
        costModel: 'github-nodes',
        key: () => 'tenant-1',
        clock: () => now.ms,
        store,
        prefix,
        onStoreError: 'deny',
      }),
    ],
    logging: false,
  });
  return async (first: number) => {
    const res = await yoga.fetch('http://yoga/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `query($n: Int!) { items(first: $n) { nodes { id } } }`,
        variables: { n: first },
      }),
    });
    return (await res.json()) as any;
  };
}

describe('useSluice on a RedisStore', () => {
  it('requested 150 / actual 40 gives back exactly 110, seen by a second server', async () => {
    const now = { ms: 1_700_000_000_000 };
    const prefix = `gql-${process.pid}-${Date.now()}`;
    const a = yogaOn(new RedisStore({ client, clock: 'client' }), now, { count: 40 }, prefix);
    const b = yogaOn(new RedisStore({ client, clock: 'client' }), now, { count: 1000 }, prefix);
    const first = await a(150);
    expect(first.extensions.cost).toEqual({
      requested: 150,
      actual: 40,
      throttleStatus: { maximumAvailable: 1000, currentlyAvailable: 960, restoreRate: 0.277778 },
    });
    // the other server, same Redis: 960 left, so 6 queries of 150 pass and the 7th does not
    for (let i = 1; i <= 6; i++) {
      const r = await b(150);
      expect(r.extensions.cost.throttleStatus.currentlyAvailable).toBe(960 - 150 * i);
    }
    const denied = await b(150);
    expect(denied.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
    // 60 left: 90 more take 90 * 3.6 s = 324 s
    expect(denied.errors[0].extensions.retryAfter).toBe(324);
  });

  it('on Redis TIME too (the server clock): the give-back is exact', async () => {
    const prefix = `gql-server-${process.pid}-${Date.now()}`;
    const q = yogaOn(new RedisStore({ client }), { ms: Date.now() }, { count: 40 }, prefix);
    const r = await q(150);
    // A few ms of refill at 0.28 points/s cannot lift a whole point.
    expect(r.extensions.cost.throttleStatus.currentlyAvailable).toBe(960);
  });
});
