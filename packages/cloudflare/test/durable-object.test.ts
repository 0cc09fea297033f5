import { fixedWindow, gcra } from '@sluice/core';
import { SWEEP_INTERVAL_MS } from '../src/durable-object.js';
import { DurableObjectStore, SluiceDurableObject } from '../src/index.js';
import { specOf } from '../src/wire.js';
import { inProcessNamespace, memoryStorage } from './in-process.js';

describe('SluiceDurableObject (in process, its storage a Map)', () => {
  it('writes what it decides before answering, and sets its sweep alarm', async () => {
    const s = memoryStorage();
    const object = new SluiceDurableObject({ storage: s.storage });
    const now = Date.now();
    const before = Date.now();
    const reply = await object.decide({
      algorithms: [specOf(fixedWindow({ limit: 2, window: '1m' }), now)],
      ops: [1, 2, 3].map(() => ({ op: 'consume' as const, key: 'k', a: 0, cost: 1, t: now })),
    });
    expect(reply.outcomes.map((o) => ('d' in o ? o.d[0] : 'error'))).toEqual([1, 1, 0]);
    expect(s.data.get('k')).toEqual([now + 60_000, 2]);
    expect(s.alarm()).toBeGreaterThanOrEqual(before + SWEEP_INTERVAL_MS);
  });

  it('its alarm deletes the states expired over a minute ago and keeps the others', async () => {
    const s = memoryStorage();
    const object = new SluiceDurableObject({ storage: s.storage });
    const now = Date.now();
    const minute = specOf(fixedWindow({ limit: 2, window: '1m' }), now);
    // Decided 3 minutes ago (expired 2 minutes ago), 30 s ago (live), and 61.5 s ago
    // (expired 1.5 s ago: kept, within the slack for callers' clocks).
    await object.decide({
      algorithms: [minute],
      ops: [
        { op: 'consume', key: 'old', a: 0, cost: 1, t: now - 180_000 },
        { op: 'consume', key: 'live', a: 0, cost: 1, t: now - 30_000 },
        { op: 'consume', key: 'recent', a: 0, cost: 1, t: now - 61_500 },
      ],
    });
    await object.alarm();
    expect([...s.data.keys()].sort()).toEqual(['live', 'recent']);
    // Keys remain: the next sweep is scheduled.
    expect(s.alarm()).not.toBeNull();
  });

  it('answers a body that is not a batch with 400, and an error per operation it cannot run', async () => {
    const s = memoryStorage();
    const object = new SluiceDurableObject({ storage: s.storage });
    const bad = await object.fetch(new Request('http://x/', { method: 'POST', body: '{}' }));
    expect(bad.status).toBe(400);
    const now = Date.now();
    const reply = await object.decide({
      algorithms: [
        specOf(fixedWindow({ limit: 2, window: '1m' }), now),
        specOf(gcra({ rate: 1, period: '1s' }), now),
      ],
      ops: [
        { op: 'reserve', key: 'w', a: 0, cost: 1, t: now, maxWait: 1000 },
        { op: 'reserve', key: 'g', a: 1, cost: 1, t: now, maxWait: 1000 },
      ],
    });
    expect(reply.outcomes[0]).toEqual({ error: expect.stringMatching(/cannot reserve/) });
    expect(reply.outcomes[1]).toMatchObject({ delay: 0 });
  });
});

describe('DurableObjectStore batching', () => {
  it('sends the decisions of one turn in one fetch per shard, each answered in order', async () => {
    const { namespace, fetches } = inProcessNamespace();
    const store = new DurableObjectStore({ namespace, shards: 2 });
    const window = fixedWindow({ limit: 3, window: '1m' });
    const now = Date.now();
    const keys = ['a', 'b', 'c', 'd'];
    const decisions = await Promise.all(
      keys.flatMap((k) => [1, 2, 3, 4].map(() => store.consume(k, window, 1, now))),
    );
    const shards = new Set(keys.map((k) => store.shardOf(k)));
    expect(shards.size).toBe(2);
    // 16 decisions, one fetch per shard they fall in.
    expect(fetches).toHaveLength(shards.size);
    expect(decisions.map((d) => d.remaining)).toEqual(keys.flatMap(() => [2, 1, 0, 0]));
    expect(decisions.map((d) => d.allowed)).toEqual(keys.flatMap(() => [true, true, true, false]));
    // The next turn: a new batch.
    await store.consume('a', window, 0, now);
    expect(fetches).toHaveLength(shards.size + 1);
  });
});

describe('SluiceDurableObject keeping operator entries (in process, its storage a Map)', () => {
  const AT = Date.now();
  const entry = (id: string, until: number | null) => ({
    id,
    kind: 'deny' as const,
    subject: { user: id },
    until,
    at: AT,
  });

  it('bumps the version on each write, keeps entries in storage (a new instance reads them), drops ended ones on the next write, and answers a known version alone', async () => {
    const s = memoryStorage();
    const object = new SluiceDurableObject({ storage: s.storage });
    const now = Date.now();
    const run = async (o: SluiceDurableObject, ops: Parameters<typeof o.decide>[0]['ops']) =>
      (await o.decide({ algorithms: [], ops })).outcomes;
    expect(await run(object, [{ op: 'opsLoad', p: 'sl' }])).toEqual([{ v: 0, entries: [] }]);
    expect(
      await run(object, [
        { op: 'opsPut', p: 'sl', entry: entry('a', null) },
        { op: 'opsPut', p: 'sl', entry: entry('b', now + 50) },
        { op: 'opsPut', p: 'other', entry: entry('c', null) },
        { op: 'opsVersion', p: 'sl' },
      ]),
    ).toEqual([{ v: 1 }, { v: 2 }, { v: 1 }, { v: 2 }]);
    // No sweep alarm for entries: they end by their own `until`.
    expect(s.alarm()).toBeNull();
    // A restarted object (the same storage) has them; a caller holding version 2 gets it alone.
    const restarted = new SluiceDurableObject({ storage: s.storage });
    const [loaded] = await run(restarted, [{ op: 'opsLoad', p: 'sl' }]);
    expect(loaded).toEqual({ v: 2, entries: [entry('a', null), entry('b', now + 50)] });
    expect(await run(restarted, [{ op: 'opsLoad', p: 'sl', known: 2 }])).toEqual([{ v: 2 }]);
    // A removal drops only its entry; the next entry written at or after b's end (by its
    // writer's clock, `at`) removes b from storage too.
    const ended = [...s.data.keys()].filter((k) => k.endsWith('\u0000b'));
    expect(ended).toHaveLength(1);
    expect(await run(restarted, [{ op: 'opsRemove', p: 'sl', id: 'nothing' }])).toEqual([{ v: 3 }]);
    expect(s.data.has(ended[0]!)).toBe(true);
    const later = { ...entry('d', null), at: now + 50 };
    expect(await run(restarted, [{ op: 'opsPut', p: 'sl', entry: later }])).toEqual([{ v: 4 }]);
    expect(s.data.has(ended[0]!)).toBe(false);
    expect(await run(restarted, [{ op: 'opsLoad', p: 'sl', known: 2 }])).toEqual([
      { v: 4, entries: [entry('a', null), later] },
    ]);
    // The sweep of expired states leaves the entries alone; a malformed write is an error.
    await restarted.alarm();
    expect(
      await run(new SluiceDurableObject({ storage: s.storage }), [{ op: 'opsLoad', p: 'other' }]),
    ).toEqual([{ v: 1, entries: [entry('c', null)] }]);
    expect(await run(restarted, [{ op: 'opsPut', p: 'sl', entry: {} as never }])).toEqual([
      { error: 'sluice: not an operator entry' },
    ]);
  });
});
