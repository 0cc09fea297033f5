// The LiteLLM cases on Redis (the full tier): the same upfront charge and settle, atomic in
// one Lua call, as on the memory store (litellm.test.ts).
import { RedisStore } from '@sluice/redis';
import { type RedisProcess, startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { describeLiteLLMCases } from './litellm-cases.js';

let server: RedisProcess;
const stores: RedisStore[] = [];
let client: Redis;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ port: server.port, host: '127.0.0.1' });
}, 30_000);

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  client?.disconnect();
  await server?.stop();
});

let n = 0;
describeLiteLLMCases('Redis', {
  store: () => {
    const store = new RedisStore({ client, clock: 'client' });
    stores.push(store);
    return store;
  },
  prefix: () => `ai${n++}`,
});
