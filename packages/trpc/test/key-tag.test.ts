// A tRPC limit moved from GCRA to a fixed window keys under the fixed window's tag (as HTTP
// does, keys/limit-key-prefix.ts): it starts afresh instead of reading the GCRA's state.
import { fixedWindow, Limit, MemoryStore } from '@sluice/core';
import { sluiceTrpc } from '@sluice/trpc';
import { TRPCError } from '@trpc/server';

const clock = () => 1_700_000_000_000;
const keysOf = (store: MemoryStore) => store.dump().keys.map(([space, key]) => (space ?? '') + key);

it('a limit switched from GCRA to a fixed window no longer reads the GCRA state', async () => {
  const store = new MemoryStore();
  const call = (mw: ReturnType<typeof sluiceTrpc>) =>
    mw({ ctx: {}, path: 'p', type: 'query', next: async () => 'ok' }).catch((e: unknown) => e);
  const limit = Limit.perMinute(3).named('api');
  const gcra = sluiceTrpc(limit, { store, key: () => 'k', clock });
  for (let i = 0; i < 3; i++) expect(await call(gcra)).toBe('ok');
  expect(await call(gcra)).toBeInstanceOf(TRPCError);
  const before = keysOf(store);
  const windowed = sluiceTrpc(limit, {
    store,
    key: () => 'k',
    clock,
    algorithm: ({ limit: n, periodMs }) => fixedWindow({ limit: n, window: periodMs }),
  });
  // A fresh window: 3 calls, then refused by the window itself.
  for (let i = 0; i < 3; i++) expect(await call(windowed)).toBe('ok');
  expect(await call(windowed)).toBeInstanceOf(TRPCError);
  const added = keysOf(store).filter((k) => !before.includes(k));
  expect(added).toHaveLength(1);
  expect(added[0]!.startsWith('sl@fw:api:')).toBe(true);
  expect(before.every((k) => k.startsWith('sl:api:'))).toBe(true);
});
