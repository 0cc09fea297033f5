// The store conformance suite (@sluice/test-kit store-conformance.ts) on RedisStore over an
// @upstash/redis client, through test-kit's Upstash REST bridge in front of a redis-server
// the test starts: the redis-cell vectors, random traces against MemoryStore,
// all-or-nothing under concurrency, 4 processes racing on one key (each its own client,
// all through the one bridge) and a soak. The hosted Upstash service is not tested here.
// Named conformance-*: like the client matrix, it runs once in CI, on one Node (.ci/run).
import { join } from 'node:path';
import {
  describeStoreConformance,
  type RedisProcess,
  startRedis,
  startUpstashBridge,
  type UpstashBridge,
} from '@sluice/test-kit';
import { Redis } from '@upstash/redis';
import { RedisStore } from '../src/index.js';

let server: RedisProcess;
let bridge: UpstashBridge;
let client: Redis;

describeStoreConformance({
  name: 'RedisStore (@upstash/redis over the REST bridge)',
  async setup() {
    server = await startRedis();
    bridge = await startUpstashBridge(server.port);
    client = new Redis({ url: bridge.url, token: bridge.token, retry: false });
  },
  async teardown() {
    await bridge?.close();
    await server?.stop();
  },
  clientClockStore: () => new RedisStore({ client, clock: 'client', timeoutMs: 30_000 }),
  // Redis keys expire in real time and each op is an HTTP round trip through the bridge: each
  // trace in lockstep with MemoryStore on a clock never behind real time (a trace with an op
  // slower than the keys' slack runs again on a fresh key), 32 at once.
  // perf: 32 lanes, not 8: the round trips overlap (52 s to 11 s for the file, 18 s beside
  // three CPU hogs), and the lockstep, not the lane count, keeps each trace exact.
  traceConcurrency: 32,
  realTimeTraces: true,
  // The Lua is the standalone suite's, traced there with 10,000 ops per algorithm; here the
  // transport is under test (JSON replies, base64, pipelines), and each op a round trip.
  ops: 2000,
  workerModule: join(__dirname, 'upstash-store-module.ts'),
  workerEnv: () => ({ SLUICE_UPSTASH_URL: bridge.url, SLUICE_UPSTASH_TOKEN: bridge.token }),
});
