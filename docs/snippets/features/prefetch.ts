// A hot key on Redis decided at in-memory speed: each process takes up to 100 units of the
// key's quota in one script call and decides the next requests from them, with no round
// trip; what it did not use goes back to Redis after 100 ms, or on shutdown.

import { rateLimit } from '@sluice/fastify';
import { RedisStore } from '@sluice/redis';
import Fastify from 'fastify';
import { Redis } from 'ioredis';

const client = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const store = new RedisStore({ client, prefetch: { units: 100, ttl: '100ms' } });

const app = Fastify();
// One API key sends thousands of requests a second: 100 000 per minute, across every server.
await app.register(rateLimit, {
  limit: 'throttle:100000,1',
  key: (req) => `api-key:${String(req.headers['x-api-key'] ?? req.ip)}`,
  store,
});
app.get('/search', async () => ({ hits: [] }));

// On shutdown: give back the units this process holds, then close the client.
app.addHook('onClose', async () => {
  await store.close();
  await client.quit();
});

await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
