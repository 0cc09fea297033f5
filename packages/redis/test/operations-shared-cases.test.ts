// test-kit's shared operations cases on RedisStore, on one redis-server: the override kinds
// (the entries come from Redis, the overridden limits decided by the Lua twins) and
// RateLimiter.reserve under operator entries (the booking is the reserve Lua twin's, at the
// override's rate), and wildcard user and key subjects (the pattern text through Redis's hash).
import {
  describeOverrideKinds,
  describeReserveUnderOperations,
  describeWildcardSubjects,
  type RedisProcess,
  startRedis,
} from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

let server: RedisProcess;
let client: Redis;
const stores: RedisStore[] = [];
let n = 0;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ host: '127.0.0.1', port: server.port });
}, 30_000);

afterAll(async () => {
  for (const store of stores) await store.close();
  client?.disconnect();
  await server?.stop();
});

/** A store prefix per test: its own keys and entries. The limiters' clock decides. */
function store(): RedisStore {
  const s = new RedisStore({ client, prefix: `ops${++n}:`, clock: 'client' });
  stores.push(s);
  return s;
}

describe('override kinds, RedisStore', () => {
  describeOverrideKinds(store);
});

describe('RateLimiter.reserve under operator entries, RedisStore', () => {
  describeReserveUnderOperations(store);
});

describe('wildcard subjects, RedisStore', () => {
  describeWildcardSubjects(store);
});
