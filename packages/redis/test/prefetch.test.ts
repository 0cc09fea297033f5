// Prefetch (RedisStore option `prefetch`): units taken from Redis in one script call,
// decided in process, the unused ones given back. On a fake clock against a real Redis:
// N stores never admit more than the quota, and once every holding has ended the bucket plus
// what was admitted equals the quota (nothing lost, nothing made up).
import {
  type Decision,
  fixedWindow,
  gcra,
  penalty,
  RateLimiter,
  SluiceConfigError,
  slidingLog,
  slidingWindow,
} from '@sluice/core';
import { type Algorithm, parsePenalty } from '@sluice/core/store';
import { EPOCH, type RedisProcess, scriptCalls, startRedis } from '@sluice/test-kit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { PrefetchLostError, RedisStore } from '../src/index.js';

const RUNS = Number(process.env.SLUICE_PREFETCH_RUNS ?? 25);
const LIMIT = 40;
const TTL = Number(process.env.SLUICE_PREFETCH_TTL ?? 100);

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

/** Every family with a quota of LIMIT that does not refill within a trace (one day). */
const ALGORITHMS: [string, () => Algorithm][] = [
  ['gcra', () => gcra({ rate: LIMIT, period: '1d' })],
  ['fixedWindow', () => fixedWindow({ limit: LIMIT, window: '1d' })],
  ['slidingWindow', () => slidingWindow({ limit: LIMIT, window: '1d' })],
  ['slidingLog', () => slidingLog({ limit: LIMIT, window: '1d' })],
];

/** The key mark a RateLimiter puts after its prefix for each algorithm (none for GCRA). */
const KEY_MARK: Record<string, string> = {
  gcra: '',
  fixedWindow: '@fw',
  slidingWindow: '@sw',
  slidingLog: '@log',
};

const failOnStoreError = {
  onStoreError: 'deny' as const,
  logger: {
    warn: (message: string) => {
      throw new Error(`unexpected store failure: ${message}`);
    },
  },
};

/** One step of a trace: requests fired together, then the clock moves, and maybe more. */
interface Round {
  requests: { store: number; cost: number }[];
  dt: number;
  close: number | null;
  sweep: boolean;
}

const roundArb = (stores: number): fc.Arbitrary<Round> =>
  fc.record({
    requests: fc.array(
      fc.record({
        store: fc.integer({ min: 0, max: stores - 1 }),
        cost: fc.oneof(
          { arbitrary: fc.constant(1), weight: 5 },
          { arbitrary: fc.integer({ min: 2, max: 4 }), weight: 1 },
        ),
      }),
      { minLength: 0, maxLength: 12 },
    ),
    dt: fc.oneof(
      { arbitrary: fc.constant(0), weight: 2 },
      { arbitrary: fc.integer({ min: 1, max: TTL / 2 }), weight: 3 },
      { arbitrary: fc.integer({ min: TTL, max: 3 * TTL }), weight: 1 },
    ),
    close: fc.option(fc.integer({ min: 0, max: stores - 1 }), { freq: 8 }),
    sweep: fc.boolean(),
  });

let traceId = 0;

/** The documented key marks (after the prefix) of the algorithms other than GCRA. */
const SHORT_KIND: Record<string, string> = {
  'fixed-window': 'fw',
  'sliding-window': 'sw',
  'sliding-log': 'log',
  'calendar-window': 'cal',
};

describe.each(ALGORITHMS)('prefetch on %s, N stores on a fake clock', (_name, make) => {
  test('admitted never exceeds the quota; bucket + admitted = quota once holdings end', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 4, maxLength: 4 }),
        fc.array(roundArb(4), { minLength: 1, maxLength: 12 }),
        async (n, units, rounds) => {
          const algorithm = make();
          let now = EPOCH + 1000;
          const clock = () => now;
          const key = `k${traceId++}`;
          const stores = Array.from(
            { length: n },
            (_, i) =>
              new RedisStore({
                client,
                clock: 'client',
                timeoutMs: 10_000,
                prefetch: { units: units[i]!, ttl: TTL },
              }),
          );
          // Holdings end on the fake clock only (sweep), not after ttl of real time.
          for (const s of stores) s.prefetcher!.realTime = false;
          const limiters = stores.map(
            (store) => new RateLimiter({ algorithm, store, clock, ...failOnStoreError }),
          );
          // The bucket as Redis holds it, read without a prefetch.
          const truth = new RateLimiter({
            algorithm,
            store: new RedisStore({ client, clock: 'client', timeoutMs: 10_000 }),
            clock,
            ...failOnStoreError,
          });
          // The store key: the prefix marked with the algorithm (`sl@fw:`), none for GCRA.
          const mark = algorithm.kind === 'gcra' ? '' : `@${SHORT_KIND[algorithm.kind]}`;
          const storeKey = `sl${mark}:${key}`;
          const held = () => stores.reduce((sum, s) => sum + s.prefetcher!.held(storeKey), 0);
          let admitted = 0;
          for (const round of rounds) {
            const decisions = await Promise.all(
              round.requests
                .filter((r) => r.store < n)
                .map((r) => limiters[r.store]!.consume(key, { cost: r.cost })),
            );
            for (const d of decisions) if (d.allowed) admitted += d.cost;
            expect(admitted).toBeLessThanOrEqual(LIMIT);
            now += round.dt;
            if (round.close !== null && round.close < n) await stores[round.close]!.close();
            if (round.sweep) for (const s of stores) s.prefetcher!.sweep(now);
            await Promise.all(stores.map((s) => s.prefetcher!.idle()));
            // Charged in Redis = admitted + what the processes hold: nothing lost or made up.
            const peek = await truth.peek(key);
            expect(LIMIT - peek.remaining).toBe(admitted + held());
          }
          // Every holding ends (ttl passes): everything not used is back in the bucket.
          now += TTL;
          for (const s of stores) s.prefetcher!.sweep(now);
          await Promise.all(stores.map((s) => s.prefetcher!.idle()));
          expect(held()).toBe(0);
          expect((await truth.peek(key)).remaining + admitted).toBe(LIMIT);
          await Promise.all(stores.map((s) => s.close()));
        },
      ),
      { numRuns: RUNS, seed: process.env.SEED ? Number(process.env.SEED) : undefined },
    );
  }, 120_000);
});

describe('prefetch', () => {
  const algorithm = gcra({ rate: 1000, period: '1h' });

  function store(units: number, ttl: number | string = '1h') {
    return new RedisStore({ client, clock: 'client', prefetch: { units, ttl } });
  }

  test('decides a hot key from held units: one script call per `units` decisions', async () => {
    const s = store(50);
    const limiter = new RateLimiter({ algorithm, store: s, clock: () => EPOCH });
    await limiter.consume('warm'); // loads the script
    const before = await scriptCalls(client);
    for (let i = 0; i < 200; i++) expect((await limiter.consume('hot')).allowed).toBe(true);
    expect((await scriptCalls(client)) - before).toBe(4);
    await s.close();
  });

  test('concurrent requests of one process: one fetch, the rest from it or decided together', async () => {
    const s = store(50);
    const limiter = new RateLimiter({ algorithm, store: s, clock: () => EPOCH });
    const truth = new RateLimiter({
      algorithm,
      store: new RedisStore({ client, clock: 'client' }),
      clock: () => EPOCH,
    });
    await limiter.consume('warm-2');
    const before = await scriptCalls(client);
    const decisions = await Promise.all(
      Array.from({ length: 200 }, () => limiter.consume('burst')),
    );
    expect(decisions.every((d) => d.allowed)).toBe(true);
    // The fetch (50 units: 50 requests), then one fetch for the other 150 together.
    expect((await scriptCalls(client)) - before).toBe(2);
    expect(1000 - (await truth.peek('burst')).remaining).toBe(200);
    await s.close();
  });

  test('the fetch reports Redis plus what this process holds; a decision from held units what it holds', async () => {
    const s = store(50);
    const limiter = new RateLimiter({ algorithm, store: s, clock: () => EPOCH });
    const truth = new RateLimiter({
      algorithm,
      store: new RedisStore({ client, clock: 'client' }),
      clock: () => EPOCH,
    });
    const first = await limiter.consume('truthful'); // the fetch
    expect(first.remaining).toBe(1000 - 1);
    let last: Decision | undefined;
    for (let i = 0; i < 6; i++) last = await limiter.consume('truthful');
    expect(s.prefetcher!.held('sl:truthful')).toBe(43);
    // Other processes may have used what Redis had left at the fetch: only the units held
    // here are sure.
    expect(last!.remaining).toBe(43);
    // A peek asks Redis and adds what this process holds.
    const redis = (await truth.peek('truthful')).remaining;
    expect((await limiter.peek('truthful')).remaining).toBe(redis + 43);
    expect(redis + 43).toBe(1000 - 7);
    await s.close();
    expect((await truth.peek('truthful')).remaining).toBe(1000 - 7);
  });

  test.each(ALGORITHMS)(
    '%s: 4 stores on one key, no decision reports more than Redis plus its own holding',
    async (name, make) => {
      const algo = make();
      const stores = Array.from({ length: 4 }, () => store(8));
      const limiters = stores.map(
        (st) =>
          new RateLimiter({ algorithm: algo, store: st, clock: () => EPOCH, ...failOnStoreError }),
      );
      const truth = new RateLimiter({
        algorithm: algo,
        store: new RedisStore({ client, clock: 'client' }),
        clock: () => EPOCH,
      });
      const key = `remaining-${name}`;
      let over = 0;
      for (let i = 0; i < 60; i++) {
        const n = i % 4;
        const d = await limiters[n]!.consume(key);
        const redis = (await truth.peek(key)).remaining;
        const allowed = redis + stores[n]!.prefetcher!.held(`sl${KEY_MARK[name]}:${key}`);
        if (d.remaining > allowed) over++;
      }
      expect(over).toBe(0);
      await Promise.all(stores.map((st) => st.close()));
    },
  );

  test('a block (blockFor) holds on every store with prefetch: none admits from units it held', async () => {
    const blocked = penalty(fixedWindow({ limit: 40, window: '1h' }), parsePenalty('30s'));
    const stores = Array.from({ length: 4 }, () => store(8));
    const limiters = stores.map(
      (st) =>
        new RateLimiter({ algorithm: blocked, store: st, clock: () => EPOCH, ...failOnStoreError }),
    );
    // Each store decides a few requests: on main each then holds units of the key.
    for (const limiter of limiters) for (let i = 0; i < 2; i++) await limiter.consume('blocked');
    // Store 0 alone uses up the quota, and its next request is denied: the key is blocked.
    let denied: Decision | undefined;
    for (let i = 0; i < 100 && denied === undefined; i++) {
      const d = await limiters[0]!.consume('blocked');
      if (!d.allowed) denied = d;
    }
    expect(denied?.retryAfterMs).toBeGreaterThan(29_000);
    // Every store, the ones that held units before the block too, denies during the block.
    const during = await Promise.all(
      limiters.flatMap((limiter) => Array.from({ length: 10 }, () => limiter.consume('blocked'))),
    );
    expect(during.filter((d) => d.allowed)).toHaveLength(0);
    await Promise.all(stores.map((st) => st.close()));
  });

  test('close() after the client quit says how many units it could not give back', async () => {
    const own = new Redis({ port: server.port, host: '127.0.0.1' });
    const s = new RedisStore({ client: own, clock: 'client', prefetch: { units: 100, ttl: '1h' } });
    const limiter = new RateLimiter({ algorithm, store: s, clock: () => EPOCH });
    await limiter.consume('quit-first');
    expect(s.prefetcher!.held('sl:quit-first')).toBe(99);
    await own.quit();
    const error = await s.close().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PrefetchLostError);
    expect((error as PrefetchLostError).units).toBe(99);
    expect((error as PrefetchLostError).message).toMatch(/99 prefetched units of 1 key/);
    expect((error as PrefetchLostError).message).not.toContain('quit-first');
  });

  test('close() with the client open gives every held unit back and resolves', async () => {
    const s = store(100);
    const limiter = new RateLimiter({ algorithm, store: s, clock: () => EPOCH });
    await limiter.consume('close-open');
    await expect(s.close()).resolves.toBeUndefined();
    const truth = new RateLimiter({
      algorithm,
      store: new RedisStore({ client, clock: 'client' }),
      clock: () => EPOCH,
    });
    expect((await truth.peek('close-open')).remaining).toBe(1000 - 1);
  });

  test('fetches less as a key nears its limit, and never denies from held units alone', async () => {
    const small = gcra({ rate: 10, period: '1h' });
    const a = store(8);
    const b = store(8);
    const la = new RateLimiter({ algorithm: small, store: a, clock: () => EPOCH });
    const lb = new RateLimiter({ algorithm: small, store: b, clock: () => EPOCH });
    await la.consume('near'); // 10 left: takes min(8, 10 / 4) = 2
    expect(a.prefetcher!.held('sl:near')).toBe(1);
    await lb.consume('near'); // 8 left: takes 2
    expect(b.prefetcher!.held('sl:near')).toBe(1);
    let admitted = 2;
    for (let i = 0; i < 20; i++) {
      if ((await la.consume('near')).allowed) admitted++;
      if ((await lb.consume('near')).allowed) admitted++;
    }
    expect(admitted).toBe(10);
    await Promise.all([a.close(), b.close()]);
  });

  test('a give-back of a request admitted from held units returns to them, with no call', async () => {
    const s = store(50);
    const limiter = new RateLimiter({ algorithm, store: s, clock: () => EPOCH });
    const charge = await limiter.consume('back');
    await limiter.consume('back');
    const before = await scriptCalls(client);
    const peek = await limiter.refund('back', { charge });
    expect(await scriptCalls(client)).toBe(before);
    expect(s.prefetcher!.held('sl:back')).toBe(49);
    expect(peek.remaining).toBe(49);
    await s.close();
  });

  test('several limits: fetched all-or-nothing, denied by any, charged by none', async () => {
    const perDay = fixedWindow({ limit: 5, window: '1d' });
    const big = gcra({ rate: 100, period: '1d' });
    const stores = [store(10), store(10)];
    const decisions = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stores[i % 2]!.consumeAll!(
          [
            { key: 'multi:a', algorithm: perDay, cost: 1 },
            { key: 'multi:b', algorithm: big, cost: 1 },
          ],
          EPOCH,
        ),
      ),
    );
    const admitted = decisions.filter((d) => d.every((x) => x.allowed)).length;
    expect(admitted).toBe(5);
    await Promise.all(stores.map((s) => s.close()));
    const plain = new RedisStore({ client, clock: 'client' });
    expect((await plain.consume('multi:b', big, 0, EPOCH)).remaining).toBe(100 - 5);
  });

  test('close gives back what is held; the store then decides in Redis', async () => {
    const s = store(20);
    const limiter = new RateLimiter({ algorithm, store: s, clock: () => EPOCH });
    await limiter.consume('closing');
    await s.close();
    expect(s.prefetcher!.held('sl:closing')).toBe(0);
    const d = await limiter.consume('closing');
    expect(d.remaining).toBe(998);
  });

  test.each([
    [{ units: 0, ttl: 100 }, 'prefetch.units'],
    [{ units: 1.5, ttl: 100 }, 'prefetch.units'],
    [{ units: '5', ttl: 100 }, 'prefetch.units'],
    [{ units: 5, ttl: 'soon' }, 'prefetch.ttl'],
    [{ units: 5, ttl: 0.5 }, 'prefetch.ttl'],
    [{ units: 5 }, 'prefetch.ttl'],
    [{ units: 5, ttl: 100, sync: 1 }, 'sync'],
    [50, 'prefetch'],
  ])('bad prefetch %j is a SluiceConfigError naming %s', (prefetch, option) => {
    const make = () => new RedisStore({ client, prefetch: prefetch as never });
    expect(make).toThrow(SluiceConfigError);
    expect(make).toThrow(expect.objectContaining({ option }));
  });
});
