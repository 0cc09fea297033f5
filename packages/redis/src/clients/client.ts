import { glideClient, isGlideShaped } from './glide.js';
import { ioredisClient, isIoredisShaped } from './ioredis.js';
import { isNodeRedisShaped, nodeRedisClient } from './node-redis.js';
import type { ScriptClient } from './script-client.js';
import { isUpstashShaped, upstashClient } from './upstash.js';

export type { ScriptClient };

/**
 * A Redis client as `RedisStore` takes it (option `client`), by shape: ioredis 5/6 (`Redis`,
 * `Cluster`, a `Redis` with `sentinels`), iovalkey (the same shape), or node-redis 5/6 (the
 * `redis` package: `createClient()`, `createCluster()`, `createSentinel()`), a Valkey GLIDE
 * 2.3+ client (`@valkey/valkey-glide`: `GlideClient`, `GlideClusterClient`), or an
 * `@upstash/redis` `Redis` (a REST client over `fetch`, for edge runtimes). Structural, so
 * @sluice/redis's types import none of the client packages (each is an optional peer).
 */
export type RedisClient =
  | { evalsha(...args: never[]): unknown; defineCommand(...args: never[]): unknown }
  | { evalSha(...args: never[]): unknown; sendCommand(...args: never[]): unknown }
  | { customCommand(...args: never[]): unknown; invokeScript(...args: never[]): unknown }
  | {
      evalsha(...args: never[]): unknown;
      pipeline(...args: never[]): unknown;
      createScript(...args: never[]): unknown;
    };

/** The supported clients, for error messages. */
export const SUPPORTED_CLIENTS =
  'an ioredis or iovalkey client (Redis, Cluster, or Redis with `sentinels`) or a node-redis client (createClient, createCluster or createSentinel from the `redis` package, connected) or a Valkey GLIDE client (GlideClient or GlideClusterClient from @valkey/valkey-glide 2.3+) or an @upstash/redis client (new Redis({ url, token }))';

// ScriptClient and DOWN_ERRORS live in script-client.ts, which the clients import: this file
// imports the clients, so holding them here made a circle.
const adapters = new WeakMap<object, ScriptClient>();

/**
 * The {@link ScriptClient} of a client `RedisStore` takes, made once per client; undefined
 * for any other value.
 */
export function scriptClient(client: unknown): ScriptClient | undefined {
  if (client === null || typeof client !== 'object') return undefined;
  let adapter = adapters.get(client);
  if (adapter === undefined) {
    if (isGlideShaped(client)) adapter = glideClient(client);
    else if (isIoredisShaped(client)) adapter = ioredisClient(client);
    else if (isNodeRedisShaped(client)) adapter = nodeRedisClient(client);
    else if (isUpstashShaped(client)) adapter = upstashClient(client);
    else return undefined;
    adapters.set(client, adapter);
  }
  return adapter;
}
