// The store a store-conformance worker process builds (see @sluice/test-kit
// store-worker.ts): a RedisStore over a Valkey GLIDE client of the servers in the
// environment (glide.ts), its default (server) clock.
import type { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';
import { RedisStore } from '../src/index.js';
import { connectGlide, glideEndpointsFromEnv } from './glide.js';

let client: GlideClient | GlideClusterClient | undefined;

export async function createStore(): Promise<RedisStore> {
  client = await connectGlide(glideEndpointsFromEnv());
  return new RedisStore({ client, timeoutMs: 20_000 });
}

export async function closeStore(): Promise<void> {
  client?.close();
}
