// The store conformance suite every store runs (@sluice/test-kit store-conformance.ts), on
// RedisStore over ioredis on a standalone redis-server: the same description as the
// PostgreSQL and SQLite stores (the Redis-specific matrix is conformance-*.test.ts).
import { join } from 'node:path';
import { describeStoreConformance, type RedisProcess, startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

let server: RedisProcess;
let client: Redis;

describeStoreConformance({
  name: 'RedisStore (ioredis, standalone)',
  async setup() {
    server = await startRedis();
    client = new Redis({ host: '127.0.0.1', port: server.port });
  },
  async teardown() {
    client?.disconnect();
    await server?.stop();
  },
  clientClockStore: () => new RedisStore({ client, clock: 'client', timeoutMs: 30_000 }),
  // Redis keys expire in real time, the traces run on their own clock: few at once, each
  // clock never behind real time (a trace slowed by a loaded machine would find keys gone).
  // 8, not 32 as on the Upstash bridge: 32 lanes of direct Redis traffic starved the file
  // beside it (a Cluster failover and the pub/sub timings failed next to it on a CI run).
  traceConcurrency: 8,
  realTimeTraces: true,
  workerModule: join(__dirname, 'store-module.ts'),
  workerEnv: () => ({ SLUICE_REDIS_PORT: String(server.port) }),
});
