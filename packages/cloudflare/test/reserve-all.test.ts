// DurableObjectStore#reserveAll (mode 'queue' on a route with several limits) on real
// Durable Objects in workerd, reached through the fixture Worker's bridge: on random traces
// of two-key reservations, a key asked for twice, single charges and part give-backs it
// answers exactly as MemoryStore#reserveAll (deep-equal decisions and delays), books all
// parts or none, and refuses what it cannot do.
import { fixedWindow, gcra, MemoryStore, SluiceConfigError, tokenBucket } from '@sluice/core';
import type { StoreRequest } from '@sluice/core/store';
import { EPOCH, type WorkerdProcess } from '@sluice/test-kit';
import { DurableObjectStore } from '../src/index.js';
import { bridgeNamespace } from './bridge.js';
import { startDoWorker } from './workerd.js';

let worker: WorkerdProcess;
beforeAll(async () => {
  worker = await startDoWorker();
}, 60_000);
afterAll(() => worker?.stop());

/** A seeded generator (mulberry32): the same traces on every run. */
function seeded(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const TRACES = 40;
const STEPS = 20;

it(`${TRACES} random traces of reservations of two keys (and one key twice), charges and give-backs: the object answers as MemoryStore`, async () => {
  const store = new DurableObjectStore({ namespace: bridgeNamespace(worker.url), name: 'rall' });
  const memory = new MemoryStore();
  const pair = [
    gcra({ rate: 10, period: '1s', burst: 2 }),
    tokenBucket({ capacity: 3, refillRate: 7 }),
  ];
  const next = seeded(20261127);
  let booked = 0;
  let refused = 0;
  const onObject: unknown[] = [];
  const onMemory: unknown[] = [];
  for (let trace = 0; trace < TRACES; trace++) {
    const keys = [`rall:${trace}:a`, `rall:${trace}:b`];
    let now = EPOCH;
    for (let step = 0; step < STEPS; step++) {
      now += next(3) === 0 ? 0 : next(300);
      const kind = ['all', 'all', 'all', 'twice', 'one', 'refund'][next(6)]!;
      const costs = [next(4), next(5)];
      const maxWait = next(3) === 0 ? 0 : next(1500);
      if (kind === 'all' || kind === 'twice') {
        const requests: StoreRequest[] =
          kind === 'all'
            ? keys.map((key, i) => ({ key, algorithm: pair[i]!, cost: costs[i]! }))
            : [0, 1].map((i) => ({ key: keys[0]!, algorithm: pair[0]!, cost: costs[i]! }));
        const m = memory.reserveAll(requests, now, maxWait);
        onMemory.push(m);
        onObject.push(await store.reserveAll(requests, now, maxWait));
        if (m.every((x) => x.decision.allowed)) booked++;
        else refused++;
      } else {
        const i = next(2);
        const cost = costs[i]!;
        if (kind === 'one') {
          onMemory.push(memory.consume(keys[i]!, pair[i]!, cost, now));
          onObject.push(await store.consume(keys[i]!, pair[i]!, cost, now));
        } else {
          onMemory.push(memory.refund(keys[i]!, pair[i]!, cost, now, now));
          onObject.push(await store.refund(keys[i]!, pair[i]!, cost, now, now));
        }
      }
    }
  }
  expect(onObject).toStrictEqual(onMemory);
  // Both ways were taken often: parts booked together, and refused together.
  expect(booked).toBeGreaterThan(TRACES * 2);
  expect(refused).toBeGreaterThan(TRACES * 2);
}, 120_000);

it('books every part or none: a full key keeps the other untouched', async () => {
  const store = new DurableObjectStore({ namespace: bridgeNamespace(worker.url), name: 'rall' });
  const perKey = gcra({ rate: 1, period: '1s', burst: 1 });
  const now = EPOCH;
  const a = { key: 'none:a', algorithm: perKey, cost: 1 };
  const b = { key: 'none:b', algorithm: perKey, cost: 1 };
  // a is full (its one slot taken, the next one 1 s away), b is idle.
  expect((await store.consume(a.key, perKey, 1, now)).allowed).toBe(true);
  const refusedParts = await store.reserveAll([a, b], now, 500);
  expect(refusedParts.map((p) => [p.decision.allowed, p.delayMs])).toEqual([
    [false, 0],
    [true, 0],
  ]);
  // Nothing was booked on b: its whole burst is still there.
  expect((await store.consume(b.key, perKey, 0, now)).remaining).toBe(1);
  // With room to wait for a's next slot, both book: a in 1 s, b now.
  const bookedParts = await store.reserveAll([a, b], now, 1000);
  expect(bookedParts.map((p) => [p.decision.allowed, p.delayMs])).toEqual([
    [true, 1000],
    [true, 0],
  ]);
}, 60_000);

it('refuses keys of two shards (SluiceConfigError naming shards) and a window (TypeError)', async () => {
  const sharded = new DurableObjectStore({
    namespace: bridgeNamespace(worker.url),
    shards: 8,
    name: 'rall-sharded',
  });
  const perKey = gcra({ rate: 1, period: '1s' });
  const keys = Array.from({ length: 64 }, (_, i) => `shard:${i}`);
  const a = keys.find((k) => sharded.shardOf(k) === 0)!;
  const b = keys.find((k) => sharded.shardOf(k) === 1)!;
  const across = sharded.reserveAll(
    [
      { key: a, algorithm: perKey, cost: 1 },
      { key: b, algorithm: perKey, cost: 1 },
    ],
    EPOCH,
    1000,
  );
  await expect(across).rejects.toThrow(SluiceConfigError);
  await expect(across).rejects.toThrow(/"shards".*spans 2 shards/);
  const window = fixedWindow({ limit: 2, window: '1m' });
  expect(() => sharded.reserveAll([{ key: a, algorithm: window, cost: 1 }], EPOCH, 1000)).toThrow(
    /cannot reserve \(a window has no future slot\)/,
  );
}, 60_000);
