// The store a store-conformance worker process builds (see @sluice/test-kit
// store-worker.ts): a RedisStore on the redis-server at SLUICE_REDIS_PORT, its default
// (server) clock.
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

let client: Redis | undefined;

export async function createStore(): Promise<RedisStore> {
  client = new Redis({ host: '127.0.0.1', port: Number(process.env.SLUICE_REDIS_PORT) });
  return new RedisStore({ client, timeoutMs: 20_000 });
}

export async function closeStore(): Promise<void> {
  client?.disconnect();
}
