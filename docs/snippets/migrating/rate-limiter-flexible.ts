import { fixedWindow, MemoryStore, RateLimiter } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import { Redis } from 'ioredis';

// rate-limiter-flexible: new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rl',
//   points: 10, duration: 1, insuranceLimiter: new RateLimiterMemory({ points: 10, duration: 1 }) })
const limiter = new RateLimiter({
  algorithm: fixedWindow({ limit: 10, window: '1s' }), // points per duration (seconds)
  store: new RedisStore({ client: new Redis() }), // storeClient
  prefix: 'rl', // keyPrefix
  onStoreError: 'insurance', // insuranceLimiter: built in, the default
});

// consume(key, points) resolves with the decision whether allowed or not; it never
// rejects for an exceeded limit (rate-limiter-flexible rejects with a RateLimiterRes).
const d = await limiter.consume('user:1', { cost: 2 });
if (!d.allowed) {
  console.log(`retry in ${d.retryAfterMs} ms`); // msBeforeNext
}
console.log(d.remaining); // remainingPoints

await limiter.reset('user:1'); // delete(key)
await limiter.peek('user:1'); // get(key)

// RateLimiterMemory: the default store.
const local = new RateLimiter({
  algorithm: fixedWindow({ limit: 5, window: '1m' }),
  store: new MemoryStore(),
});
await local.consume('ip:203.0.113.7');
