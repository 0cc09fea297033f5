// A connection limit moved from GCRA to a fixed window keys under the fixed window's tag (as
// HTTP does, keys/limit-key-prefix.ts): it starts afresh instead of reading the GCRA's state.
import { fixedWindow, Limit, MemoryStore } from '@sluice/core';
import { limitUpgrades } from '@sluice/ws';

const clock = () => 1_700_000_000_000;
const keysOf = (store: MemoryStore) => store.dump().keys.map(([space, key]) => (space ?? '') + key);
const request = { headers: {}, socket: { remoteAddress: '10.0.0.1' } };

it('an upgrade limit switched from GCRA to a fixed window no longer reads the GCRA state', async () => {
  const store = new MemoryStore();
  const limit = Limit.perMinute(3).named('conn');
  const gcra = limitUpgrades(limit, { store, clock });
  for (let i = 0; i < 3; i++) expect((await gcra.check(request)).allowed).toBe(true);
  expect((await gcra.check(request)).allowed).toBe(false);
  const before = keysOf(store);
  const windowed = limitUpgrades(limit, {
    store,
    clock,
    algorithm: ({ limit: n, periodMs }) => fixedWindow({ limit: n, window: periodMs }),
  });
  const first = await windowed.check(request);
  expect(first.allowed).toBe(true);
  expect(first.decision.remaining).toBe(2);
  const added = keysOf(store).filter((k) => !before.includes(k));
  expect(added).toHaveLength(1);
  expect(added[0]!.startsWith('sl@fw:conn:')).toBe(true);
  expect(before.every((k) => k.startsWith('sl:conn:'))).toBe(true);
});
