import { cellThrottle, RateLimiter, toCellReply } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import { Redis } from 'ioredis';

// CL.THROTTLE user123 15 30 60 1: max_burst 15, 30 per 60 s, cost 1
const limiter = new RateLimiter({
  algorithm: cellThrottle(15, 30, 60),
  store: new RedisStore({ client: new Redis() }),
});

const d = await limiter.consume('user123', { cost: 1 });
// The same 5-tuple CL.THROTTLE replies: [limited, limit, remaining, retry_after, reset_after]
console.log(toCellReply(d)); // [0, 16, 15, -1, 2]
