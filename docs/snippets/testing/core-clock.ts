// The core with an injected clock: decisions depend on `now` alone, so a test moves time
// instead of waiting.
import { gcra, MemoryStore, RateLimiter } from '@sluice/core';

let now = Date.UTC(2030, 0, 1); // ms since the Unix epoch
const limiter = new RateLimiter({
  algorithm: gcra({ rate: 5, period: '1m' }),
  store: new MemoryStore(),
  clock: () => now,
  // acquire() waits with `sleep`: advance the fake clock instead of sleeping.
  sleep: async (ms) => {
    now += ms;
  },
});

for (let i = 0; i < 5; i++) await limiter.consume('alice');
console.log((await limiter.consume('alice')).retryAfterMs); // 12000: the 6th waits 12 s
now += 12_000;
console.log((await limiter.consume('alice')).allowed); // true

await limiter.reset('alice'); // forget the key: full quota again
console.log((await limiter.peek('alice')).remaining); // 5

const d = await limiter.acquire('alice', { timeoutMs: 60_000 }); // "waits" on the fake clock
console.log(d.allowed); // true
