// Several limits on one request are all-or-nothing under concurrency ("an array of
// them", under faults): N concurrent requests against [5/min, 100/day] admit 5 and
// leave the day limit charged 5, on standalone Redis (one script per request) and on a
// Cluster (keys in different slots: charge per slot, then give back), for every algorithm
// and in both orders of the limits; RedisStore.consumeAll decides as MemoryStore.consumeAll
// on random traces of multi-key requests; a denied cross-slot request leaves the state it
// charged as it found it.
import {
  type Decision,
  fixedWindow,
  gcra,
  MemoryStore,
  slidingLog,
  slidingWindow,
} from '@sluice/core';
import { HttpLimiter, type HttpVerdict, type RequestView } from '@sluice/core/http';
import type { Algorithm, AlgorithmKind, StoreRequest } from '@sluice/core/store';
import {
  EPOCH,
  type RedisCluster,
  type RedisProcess,
  scriptCalls,
  startCluster,
  startRedis,
} from '@sluice/test-kit';
import fc from 'fast-check';
import { Cluster, Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';
import { keySlot, redisKey } from '../src/redis-key.js';

const KINDS: AlgorithmKind[] = ['gcra', 'fixed-window', 'sliding-window', 'sliding-log'];
const RUNS = Number(process.env.SLUICE_DIFFERENTIAL_RUNS ?? 200);

let server: RedisProcess;
let redis: Redis;
let cluster: RedisCluster;
let clusterClient: Cluster;

beforeAll(async () => {
  [server, cluster] = await Promise.all([startRedis(), startCluster()]);
  redis = new Redis({ port: server.port, host: '127.0.0.1' });
  clusterClient = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
  await clusterClient.ping();
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  clusterClient?.disconnect();
  await Promise.all([server?.stop(), cluster?.stop()]);
}, 30_000);

function view(): RequestView {
  return { method: 'POST', route: 'POST /login', ip: '10.0.0.1', headers: {}, raw: {} };
}

/** An HttpLimiter whose store failures fail the test instead of being decided by a policy. */
function strict(
  store: RedisStore,
  algorithm: AlgorithmKind,
  limit: string | string[],
  prefix: string,
): HttpLimiter {
  return new HttpLimiter({
    limit,
    store,
    algorithm,
    prefix,
    clock: () => EPOCH,
    onStoreError: 'deny',
    logger: {
      warn: (message) => {
        throw new Error(message);
      },
    },
  });
}

let run = 0;

/**
 * 50 concurrent requests of one client against `limits` ([5/min, 100/day] in some order):
 * how many were admitted, and what a day-only limiter on the same keys sees next.
 */
async function fifty(store: RedisStore, algorithm: AlgorithmKind, limits: string[]) {
  const prefix = `aon${run++}`;
  const limiter = strict(store, algorithm, limits, prefix);
  const verdicts = await Promise.all(
    Array.from({ length: 50 }, () => limiter.check(view()) as Promise<HttpVerdict>),
  );
  const day = strict(store, algorithm, 'throttle:100,1440', prefix);
  const next = (await day.check(view())) as HttpVerdict;
  return { admitted: verdicts.filter((v) => v.allowed).length, dayAfterOneMore: next.decision };
}

const ORDERS = [
  ['throttle:5,1', 'throttle:100,1440'],
  // The day limit first: on a Cluster every request charges it, and the 45 the minute
  // limit denies must give back exactly what they took.
  ['throttle:100,1440', 'throttle:5,1'],
];

describe.each([
  ['standalone Redis', () => new RedisStore({ client: redis, clock: 'client' })],
  ['Redis Cluster', () => new RedisStore({ client: clusterClient, clock: 'client' })],
])('%s: 50 concurrent requests on [5/min, 100/day]', (_, makeStore) => {
  it.each(KINDS.flatMap((kind) => ORDERS.map((order) => [kind, order] as const)))(
    '%s, limits %j: admit 5, the day limit charged 5',
    async (kind, order) => {
      const { admitted, dayAfterOneMore } = await fifty(makeStore(), kind, [...order]);
      expect(admitted).toBe(5);
      expect(dayAfterOneMore.allowed).toBe(true);
      expect(dayAfterOneMore.remaining).toBe(94);
    },
  );
});

it('Redis Cluster: the two limits of the test above are in different slots', () => {
  const store = new RedisStore({ client: clusterClient });
  const minute = store.keyFor('aon:5-per-60000ms:POST /login:ip:10.0.0.1');
  const day = store.keyFor('aon:100-per-86400000ms:POST /login:ip:10.0.0.1');
  expect(keySlot(minute)).not.toBe(keySlot(day));
});

it('standalone Redis, server clock: 50 concurrent requests admit 5, the day limit charged 5', async () => {
  const store = new RedisStore({ client: redis });
  const limiter = new HttpLimiter({
    limit: ['throttle:100,1440', 'throttle:5,1'],
    store,
    prefix: 'aon-server',
    onStoreError: 'deny',
  });
  const verdicts = await Promise.all(
    Array.from({ length: 50 }, () => limiter.check(view()) as Promise<HttpVerdict>),
  );
  expect(verdicts.filter((v) => v.allowed)).toHaveLength(5);
  const day = gcra({ rate: 100, period: '1d' });
  const peek = await store.consume(
    'aon-server:100-per-86400000ms:POST /login:ip:10.0.0.1',
    day,
    0,
    0,
  );
  expect(peek.remaining).toBe(95);
});

/** Algorithms by kind, for the store-level tests. */
const ALGORITHMS: Record<AlgorithmKind, (limit: number, windowMs: number) => Algorithm> = {
  gcra: (limit, windowMs) => gcra({ rate: limit, period: windowMs }),
  'fixed-window': (limit, window) => fixedWindow({ limit, window }),
  'sliding-window': (limit, window) => slidingWindow({ limit, window }),
  'sliding-log': (limit, window) => slidingLog({ limit, window }),
};

/** Two limiter keys whose tagged Redis keys share a slot, and one in another slot. */
function keysBySlot(prefix: string): { same: [string, string]; other: string } {
  const first = `${prefix}:a`;
  const slot = keySlot(redisKey('', first));
  let same: string | undefined;
  let other: string | undefined;
  for (let i = 0; same === undefined || other === undefined; i++) {
    const k = `${prefix}:${i}`;
    if (keySlot(redisKey('', k)) === slot) same ??= k;
    else other ??= k;
  }
  return { same: [first, same], other };
}

describe('Redis Cluster, store API', () => {
  it.each(KINDS)(
    '%s: keys in one slot are decided by one script, all-or-nothing, and mixed algorithms work',
    async (kind) => {
      const store = new RedisStore({ client: clusterClient, clock: 'client' });
      const { same } = keysBySlot(`slot-${kind}`);
      const small = ALGORITHMS[kind](2, 60_000);
      const big = ALGORITHMS.gcra(10, 60_000);
      const request = (cost: number): StoreRequest[] => [
        { key: same[0], algorithm: small, cost },
        { key: same[1], algorithm: big, cost },
      ];
      const first = await store.consumeAll(request(2), EPOCH);
      expect(first.map((d) => d.allowed)).toEqual([true, true]);
      const second = await store.consumeAll(request(1), EPOCH);
      expect(second.map((d) => d.allowed)).toEqual([false, true]);
      // Denied: the big limit reports its peek with the request's cost, uncharged.
      expect(second[1]).toMatchObject({ remaining: 8, cost: 1 });
      const peek = await store.consume(same[1], big, 0, EPOCH);
      expect(peek.remaining).toBe(8);
    },
  );

  it.each(KINDS.flatMap((a) => KINDS.map((b) => [a, b] as const)))(
    '%s charged then %s denied in another slot: the first is given back exactly',
    async (kindA, kindB) => {
      const store = new RedisStore({ client: clusterClient, clock: 'client' });
      const { same, other } = keysBySlot(`refund-${kindA}-${kindB}`);
      const a = ALGORITHMS[kindA](10, 60_000);
      const b = ALGORITHMS[kindB](3, 60_000);
      // Some earlier history on A (two requests), B exhausted.
      await store.consume(same[0], a, 2, EPOCH - 5000);
      await store.consume(same[0], a, 1, EPOCH - 1000);
      await store.consume(other, b, 3, EPOCH - 500);
      const before = await store.consume(same[0], a, 0, EPOCH);
      const decisions = await store.consumeAll(
        [
          { key: same[0], algorithm: a, cost: 2 },
          { key: other, algorithm: b, cost: 1 },
        ],
        EPOCH,
      );
      expect(decisions.map((d) => d.allowed)).toEqual([true, false]);
      // The given-back limit reports its peek with the cost, as a denied request's limits do.
      expect(decisions[0]).toEqual({ ...before, cost: 2 });
      expect(await store.consume(same[0], a, 0, EPOCH)).toEqual(before);
      // And its next decisions are those of a key that was never charged by it.
      const fresh = new MemoryStore();
      fresh.consume('k', a, 2, EPOCH - 5000);
      fresh.consume('k', a, 1, EPOCH - 1000);
      for (const [dt, cost] of [
        [0, 7],
        [0, 1],
        [30_000, 2],
      ] as const) {
        expect(await store.consume(same[0], a, cost, EPOCH + dt)).toEqual(
          fresh.consume('k', a, cost, EPOCH + dt),
        );
      }
    },
  );
});

/** A random trace of multi-key requests over a few keys, each key with its own algorithm. */
const ALGORITHM_POOL: Algorithm[] = [
  gcra({ rate: 5, period: '1s' }),
  gcra({ rate: 3000, period: '1s', burst: 20 }),
  gcra({ rate: 7, period: '1m', burst: 3 }),
  fixedWindow({ limit: 5, window: 1000 }),
  slidingWindow({ limit: 7, window: 3001 }),
  slidingLog({ limit: 5, window: 1000 }),
];

const traceArb = fc.record({
  start: fc.integer({ min: 0, max: 86_400_000 }),
  algorithms: fc.array(fc.integer({ min: 0, max: ALGORITHM_POOL.length - 1 }), {
    minLength: 4,
    maxLength: 4,
  }),
  steps: fc.array(
    fc.record({
      dt: fc.oneof(
        fc.constant(0),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 2000 }),
      ),
      keys: fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 }),
      costs: fc.array(fc.oneof(fc.constant(1), fc.integer({ min: 0, max: 8 })), {
        minLength: 4,
        maxLength: 4,
      }),
    }),
    { minLength: 1, maxLength: 30 },
  ),
});

let traceId = 0;

it(`standalone Redis: RedisStore.consumeAll decides as MemoryStore.consumeAll (${RUNS} random traces)`, async () => {
  const memory = new MemoryStore();
  const store = new RedisStore({ client: redis, clock: 'client', timeoutMs: 5000 });
  let admitted = 0;
  let denied = 0;
  await fc.assert(
    fc.asyncProperty(traceArb, async ({ start, algorithms, steps }) => {
      const prefix = `diff-all:${traceId++}:`;
      let now = EPOCH + start;
      for (const step of steps) {
        now += step.dt;
        const requests: StoreRequest[] = step.keys.map((k) => ({
          key: String(k),
          prefix,
          algorithm: ALGORITHM_POOL[algorithms[k]!]!,
          cost: step.costs[k]!,
        }));
        const expected: Decision[] = memory.consumeAll(requests, now);
        expect(await store.consumeAll(requests, now)).toStrictEqual(expected);
        if (expected.every((d) => d.allowed)) admitted++;
        else denied++;
      }
    }),
    { numRuns: RUNS },
  );
  expect(admitted).toBeGreaterThan(RUNS);
  expect(denied).toBeGreaterThan(RUNS);
}, 120_000);

it('standalone Redis: requests of one turn share a script call; a bad one fails alone', async () => {
  const store = new RedisStore({ client: redis, clock: 'client' });
  await redis.rpush('bad:list', 'x');
  const algorithm = fixedWindow({ limit: 3, window: 60_000 });
  const good = (i: number): StoreRequest[] => [
    { key: `batch:${i}:a`, algorithm, cost: 1 },
    { key: `batch:${i}:b`, algorithm, cost: 2 },
  ];
  const before = await scriptCalls(redis);
  const results = await Promise.allSettled([
    store.consumeAll(good(1), EPOCH),
    store.consumeAll([...good(2), { key: 'bad:list', algorithm, cost: 1 }], EPOCH),
    store.consumeAll(good(3), EPOCH),
  ]);
  expect((await scriptCalls(redis)) - before).toBe(1);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  // The key's state only (a StoreKeyError), by kind: no key text.
  const reason = (results[1] as PromiseRejectedResult).reason as Error;
  expect(reason.name).toBe('StoreKeyError');
  expect(reason.message).toMatch(/another Redis type/);
  expect(reason.message).not.toContain('batch:2');
  // The bad request charged nothing.
  const [peek] = await store.consumeAll([{ key: 'batch:2:a', algorithm, cost: 0 }], EPOCH);
  expect(peek!.remaining).toBe(3);
});
