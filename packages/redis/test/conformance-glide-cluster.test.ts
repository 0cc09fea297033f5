// The store conformance suite (@sluice/test-kit store-conformance.ts) on RedisStore over a
// Valkey GLIDE GlideClusterClient (@valkey/valkey-glide) on a 3-master Redis Cluster the
// test starts: keys in their own slots (hash tags), several limits across slots
// all-or-nothing (charged per slot, given back), 4 processes racing on one key, a soak.
// Named conformance-*: it runs once in CI, on one Node (.ci/run).
import { join } from 'node:path';
import { describeStoreConformance, type RedisCluster, startCluster } from '@sluice/test-kit';
import type { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';
import { RedisStore } from '../src/index.js';
import { connectGlide, type GlideEndpoints, glideEnv } from './glide.js';

let cluster: RedisCluster;
let endpoints: GlideEndpoints;
let client: GlideClient | GlideClusterClient;

describeStoreConformance({
  name: 'RedisStore (Valkey GLIDE GlideClusterClient, Cluster)',
  async setup() {
    cluster = await startCluster();
    endpoints = { cluster: true, ports: cluster.nodes.map((n) => n.port) };
    client = await connectGlide(endpoints);
  },
  async teardown() {
    client?.close();
    await cluster?.stop();
  },
  clientClockStore: () => new RedisStore({ client, clock: 'client', timeoutMs: 30_000 }),
  traceConcurrency: 8,
  realTimeTraces: true,
  // As on the standalone server (conformance-glide.test.ts): the client and its routing are
  // under test, the Lua is traced in full by the ioredis suite.
  ops: 2000,
  workerModule: join(__dirname, 'glide-store-module.ts'),
  workerEnv: () => glideEnv(endpoints),
});
