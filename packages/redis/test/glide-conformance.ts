// The store conformance suite (@sluice/test-kit store-conformance.ts) on RedisStore over a
// Valkey GLIDE client, on a server the suite starts: a GlideClient on a standalone
// redis-server (conformance-glide.test.ts) or a GlideClusterClient on a 3-master Cluster
// (conformance-glide-cluster.test.ts). The redis-cell vectors, random traces against
// MemoryStore, several limits all-or-nothing under concurrency (across slots on a Cluster:
// charged per slot, given back), 4 processes racing on one key (each its own GLIDE client)
// and a soak.
import { join } from 'node:path';
import { describeStoreConformance, startCluster, startRedis } from '@sluice/test-kit';
import type { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';
import { RedisStore } from '../src/index.js';
import { connectGlide, type GlideEndpoints, glideEnv } from './glide.js';

export function describeGlideConformance(topology: 'standalone' | 'Cluster'): void {
  let stop: () => Promise<void>;
  let endpoints: GlideEndpoints;
  let client: GlideClient | GlideClusterClient;
  describeStoreConformance({
    name:
      topology === 'Cluster'
        ? 'RedisStore (Valkey GLIDE GlideClusterClient, Cluster)'
        : 'RedisStore (Valkey GLIDE GlideClient, standalone)',
    async setup() {
      if (topology === 'Cluster') {
        const cluster = await startCluster();
        stop = () => cluster.stop();
        endpoints = { cluster: true, ports: cluster.nodes.map((n) => n.port) };
      } else {
        const server = await startRedis();
        stop = () => server.stop();
        endpoints = { cluster: false, port: server.port };
      }
      client = await connectGlide(endpoints);
    },
    async teardown() {
      client?.close();
      await stop?.();
    },
    clientClockStore: () => new RedisStore({ client, clock: 'client', timeoutMs: 30_000 }),
    // Redis keys expire in real time, the traces run on their own clock: few at once, each
    // clock never behind real time (a trace slowed by a loaded machine would find keys gone).
    // 8, as in the ioredis suite, not 32 as on the Upstash bridge: there, 32 lanes of direct
    // Redis traffic starved the file beside it (a Cluster failover and the pub/sub timings
    // failed next to it on a CI run).
    traceConcurrency: 8,
    realTimeTraces: true,
    // The Lua is the ioredis suite's, traced there with 10,000 ops per algorithm; here the
    // client is under test (its replies, its errors, its routing).
    ops: 2000,
    workerModule: join(__dirname, 'glide-store-module.ts'),
    workerEnv: () => glideEnv(endpoints),
  });
}
