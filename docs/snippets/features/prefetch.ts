// A hot key on Redis decided at in-memory speed: each process takes up to 100 units of the
// key's quota in one script call and decides the next requests from them, with no round
// trip; what it did not use goes back to Redis after 100 ms, or on shutdown (Ctrl-C,
// SIGTERM from `docker stop` or Kubernetes, `app.close()`).

import { rateLimit } from '@sluice/fastify';
import { RedisStore } from '@sluice/redis';
import Fastify from 'fastify';
import { Redis } from 'ioredis';

const client = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const store = new RedisStore({ client, prefetch: { units: 100, ttl: '100ms' } });

const app = Fastify();
// One API key sends thousands of requests a second: 100 000 per minute, across every server
// (API_LIMIT overrides it).
await app.register(rateLimit, {
  limit: process.env.API_LIMIT ?? 'throttle:100000,1',
  key: (req) => `api-key:${String(req.headers['x-api-key'] ?? req.ip)}`,
  store,
});
app.get('/search', async () => ({ hits: [] }));

// On shutdown: give back the units this process holds, then close the client (in this
// order: a store closed after its client cannot give back, and its close() rejects).
app.addHook('onClose', async () => {
  await store.close();
  await client.quit();
});
// Ctrl-C (SIGINT) and `docker stop` / Kubernetes (SIGTERM) end Node at once, without
// running onClose: close the app on them yourself. The store installs no signal handler.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await app.close();
    process.exit(0);
  });
}

await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
