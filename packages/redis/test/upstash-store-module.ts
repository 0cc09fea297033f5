// The store a store-conformance worker process builds (see @sluice/test-kit
// store-worker.ts): a RedisStore over an @upstash/redis client of the REST bridge at
// SLUICE_UPSTASH_URL, its default (server) clock.
import { Redis } from '@upstash/redis';
import { RedisStore } from '../src/index.js';

export async function createStore(): Promise<RedisStore> {
  const client = new Redis({
    url: process.env.SLUICE_UPSTASH_URL!,
    token: process.env.SLUICE_UPSTASH_TOKEN!,
    retry: false,
  });
  return new RedisStore({ client, timeoutMs: 20_000 });
}

export async function closeStore(): Promise<void> {}
