// A GraphQL limit moved from GCRA to a fixed window keys under the fixed window's tag (as
// HTTP does, keys/limit-key-prefix.ts): it starts afresh instead of reading the GCRA's state.
import { fixedWindow, Limit, MemoryStore } from '@sluice/core';
import { useSluice } from '@sluice/graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { ITEMS_SDL, itemResolvers } from './schemas.js';

const keysOf = (store: MemoryStore) => store.dump().keys.map(([space, key]) => (space ?? '') + key);

function yoga(store: MemoryStore, extra: object = {}) {
  const server = createYoga({
    schema: createSchema({ typeDefs: ITEMS_SDL, resolvers: itemResolvers({ count: 100 }) }),
    plugins: [
      useSluice({
        limit: Limit.perHour(100).named('points'),
        costModel: 'github-nodes',
        key: () => 'tenant-1',
        clock: () => 1_700_000_000_000,
        store,
        ...extra,
      }),
    ],
    logging: false,
  });
  return async (first: number) => {
    const res = await server.fetch('http://yoga/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ items(first: ${first}) { nodes { id } } }` }),
    });
    const body = (await res.json()) as { errors?: unknown[] };
    return body.errors === undefined;
  };
}

it('a limit switched from GCRA to a fixed window no longer reads the GCRA state', async () => {
  const store = new MemoryStore();
  const gcra = yoga(store);
  expect(await gcra(100)).toBe(true);
  expect(await gcra(50)).toBe(false);
  const before = keysOf(store);
  const windowed = yoga(store, {
    algorithm: ({ limit, periodMs }: { limit: number; periodMs: number }) =>
      fixedWindow({ limit, window: periodMs }),
  });
  expect(await windowed(50)).toBe(true);
  const added = keysOf(store).filter((k) => !before.includes(k));
  expect(added).toHaveLength(1);
  expect(added[0]!.startsWith('sl@fw:points:')).toBe(true);
  expect(before.every((k) => k.startsWith('sl:points:'))).toBe(true);
});
