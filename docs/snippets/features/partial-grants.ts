import { gcra, RateLimiter } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import { Redis } from 'ioredis';

// A partner API allows 100 emails per second, shared by every worker process.
const limiter = new RateLimiter({
  algorithm: gcra({ rate: 100, period: '1s' }),
  store: new RedisStore({ client: new Redis() }),
});

const queue: string[] = ['ada@example.com', 'grace@example.com' /* … */];
const send = async (batch: string[]) => void batch;

while (queue.length > 0) {
  // One atomic call: as many as the limit allows now, up to 500 (no probing).
  const d = await limiter.consumeAtMost('partner-email', Math.min(500, queue.length));
  if (d.allowed)
    await send(queue.splice(0, d.cost)); // d.cost: the units granted
  else await new Promise((r) => setTimeout(r, Math.ceil(d.retryAfterMs))); // until 1 fits
}
