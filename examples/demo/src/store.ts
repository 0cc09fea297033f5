/**
 * Where the demo's counters live: an in-memory `MemoryStore` per app, or Redis when
 * `REDIS_URL` is set (one ioredis client, one `RedisStore` per app under its own key prefix,
 * so the three apps never share a bucket). `@sluice/redis` and ioredis are only loaded when
 * `REDIS_URL` is set.
 */
import { MemoryStore, type Store } from '@sluice/core';

export interface DemoStores {
  /** `'memory'` or `'redis <url>'`, for the banner. */
  description: string;
  /** A store for the app `name` (`'express'`, `'fastify'`, `'koa'`). */
  storeFor(name: string): Store;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

/**
 * @param redisUrl - a Redis URL (`redis://127.0.0.1:6379`); default `process.env.REDIS_URL`.
 *   Without one, each app gets its own `MemoryStore`.
 */
export async function createStores(redisUrl = process.env.REDIS_URL): Promise<DemoStores> {
  if (!redisUrl) {
    return {
      description: 'in-memory (MemoryStore; set REDIS_URL to use Redis)',
      storeFor: () => new MemoryStore({ maxKeys: 10_000 }),
      close: async () => {},
    };
  }
  const { Redis } = await import('ioredis');
  const { RedisStore } = await import('@sluice/redis');
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  // Redis being down is handled per request by the limiter's onStoreError policy; the
  // client's own connection errors are only reported here.
  let lastError = '';
  client.on('error', (err: Error) => {
    if (err.message !== lastError) console.error(`redis: ${err.message}`);
    lastError = err.message;
  });
  return {
    description: `Redis at ${redisUrl.replace(/\/\/[^@/]*@/, '//***@')} (RedisStore)`,
    storeFor: (name) => new RedisStore({ client, prefix: `sluice-demo:${name}:` }),
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
