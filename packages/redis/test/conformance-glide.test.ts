// The store conformance suite (@sluice/test-kit store-conformance.ts) on RedisStore over a
// Valkey GLIDE GlideClient (@valkey/valkey-glide) on a standalone redis-server the test
// starts: the redis-cell vectors, random traces against MemoryStore, all-or-nothing under
// concurrency, 4 processes racing on one key (each its own GLIDE client) and a soak. The
// Cluster: conformance-glide-cluster.test.ts. Named conformance-*: like the client matrix,
// it runs once in CI, on one Node (.ci/run).
import { join } from 'node:path';
import { describeStoreConformance, type RedisProcess, startRedis } from '@sluice/test-kit';
import type { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';
import { RedisStore } from '../src/index.js';
import { connectGlide, glideEnv } from './glide.js';

let server: RedisProcess;
let client: GlideClient | GlideClusterClient;

describeStoreConformance({
  name: 'RedisStore (Valkey GLIDE GlideClient, standalone)',
  async setup() {
    server = await startRedis();
    client = await connectGlide({ cluster: false, port: server.port });
  },
  async teardown() {
    client?.close();
    await server?.stop();
  },
  clientClockStore: () => new RedisStore({ client, clock: 'client', timeoutMs: 30_000 }),
  // Redis keys expire in real time, the traces run on their own clock: few at once, each
  // clock never behind real time (a trace slowed by a loaded machine would find keys gone).
  traceConcurrency: 8,
  realTimeTraces: true,
  // The Lua is the ioredis suite's, traced there with 10,000 ops per algorithm; here the
  // client is under test (its replies, its errors, its routing).
  ops: 2000,
  workerModule: join(__dirname, 'glide-store-module.ts'),
  workerEnv: () => glideEnv({ cluster: false, port: server.port }),
});
