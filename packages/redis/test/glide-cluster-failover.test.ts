// A Cluster failover on a Valkey GLIDE GlideClusterClient (the scenario, the same as
// ioredis's and node-redis's: cluster-failover.ts): a master SIGKILLed, its replica promoted;
// no wrong admission on the healthy masters, back on Redis within 2 s of the promotion (GLIDE
// follows it by itself; the store reloads the slots' masters for its per-node breakers), the
// next outage logged.
import type { RedisClient } from '../src/index.js';
import { describeClusterFailover } from './cluster-failover.js';
import { connectGlide } from './glide.js';

describe('Valkey GLIDE GlideClusterClient', () => {
  describeClusterFailover('Valkey GLIDE', async (ports) => {
    const client = await connectGlide({ cluster: true, ports });
    return { client: client as unknown as RedisClient, close: async () => client.close() };
  });
});
