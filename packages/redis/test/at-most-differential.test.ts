// consumeAtMost: the Lua at-most script (at-most.lua.ts) == core's stepAtMost (MemoryStore)
// on random traces mixing charges and partial grants, for every algorithm that grants
// partly, at realistic epoch times; on Redis's clock and past prefetch holdings too.
import { fixedWindow, gcra, penalty, RateLimiter } from '@sluice/core';
import { chargeTimeOf, parsePenalty, StoreKeyError } from '@sluice/core/store';
import { EPOCH, itGrantsAsMemory, type RedisProcess, startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

const RUNS = Number(process.env.SLUICE_DIFFERENTIAL_RUNS ?? 60);

let server: RedisProcess;
let client: Redis;
let redisStore: RedisStore;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ port: server.port, host: '127.0.0.1' });
  redisStore = new RedisStore({ client, clock: 'client', timeoutMs: 5000 });
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

describe('RedisStore.consumeAtMost: the Lua twin == stepAtMost', () => {
  itGrantsAsMemory(() => redisStore, RUNS);

  it('a key holding another type fails that key only (StoreKeyError), not the store', async () => {
    await client.hset(redisStore.keyFor('wrong-type'), 'x', '1');
    const call = redisStore.consumeAtMost(
      'wrong-type',
      fixedWindow({ limit: 5, window: 1000 }),
      3,
      EPOCH,
    );
    await expect(call).rejects.toBeInstanceOf(StoreKeyError);
  });

  it('a grant of 0 under blockFor writes no block key', async () => {
    const algorithm = penalty(gcra({ rate: 2, period: '1s' }), parsePenalty(60_000));
    expect((await redisStore.consumeAtMost('pen', algorithm, 5, EPOCH)).cost).toBe(2);
    expect(await redisStore.consumeAtMost('pen', algorithm, 5, EPOCH)).toMatchObject({
      allowed: false,
      cost: 0,
      retryAfterMs: 500,
    });
    expect(await client.exists(`${redisStore.keyFor('pen')}!block`)).toBe(0);
  });
});

describe('RedisStore.consumeAtMost on Redis TIME and with prefetch', () => {
  it('on the server clock: grants, and records the charge time for a refund', async () => {
    const store = new RedisStore({ client, prefix: 'srv:', timeoutMs: 5000 });
    const limiter = new RateLimiter({ algorithm: fixedWindow({ limit: 5, window: '1m' }), store });
    const d = await limiter.consumeAtMost('batch', 3);
    expect(d).toMatchObject({ allowed: true, cost: 3, remaining: 2 });
    expect(chargeTimeOf(d)).toEqual(expect.any(Number));
    expect(await limiter.consumeAtMost('batch', 3)).toMatchObject({ cost: 2, remaining: 0 });
    expect(await limiter.consumeAtMost('batch', 3)).toMatchObject({ allowed: false, cost: 0 });
  });

  it('past the prefetch holdings: held units count as taken, the limit is never exceeded', async () => {
    const store = new RedisStore({
      client,
      prefix: 'pf:',
      clock: 'client',
      timeoutMs: 5000,
      prefetch: { units: 4, ttl: '1m' },
    });
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 10, window: '1m' }),
      store,
      clock: () => EPOCH,
    });
    expect((await limiter.consume('k')).allowed).toBe(true);
    const held = store.prefetcher!.held('sl@fw:k');
    const granted = (await limiter.consumeAtMost('k', 100)).cost;
    expect(granted).toBe(10 - 1 - held);
    await store.close();
  });
});
