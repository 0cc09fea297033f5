// An app process of the fault runner: sluice's GCRA on RedisStore with prefetch, on the
// redis-server at argv[2]. On `{ n }` it decides n requests of argv[3] and answers
// `{ admitted }`; the runner then SIGKILLs it while it holds prefetched units.
import { RateLimiter } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import { Redis } from 'ioredis';
import { makeAlgorithm } from './cells.js';

const [port, key, limit, units] = process.argv.slice(2);
const redis = new Redis({ host: '127.0.0.1', port: Number(port) });
redis.on('error', () => undefined);
const store = new RedisStore({ client: redis, prefetch: { units: Number(units), ttl: '30s' } });
const limiter = new RateLimiter({
  algorithm: makeAlgorithm('gcra', Number(limit)),
  store,
  prefix: 'fm',
  onStoreError: 'deny',
});
process.on('message', async (m: { n: number }) => {
  let admitted = 0;
  for (let i = 0; i < m.n; i++) if ((await limiter.consume(key!)).allowed) admitted++;
  process.send!({ admitted });
});
process.send!({ ready: true });
