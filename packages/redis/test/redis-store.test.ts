import {
  cellThrottle,
  fixedWindow,
  gcra,
  leakyBucket,
  RateLimiter,
  slidingLog,
  slidingWindow,
} from '@sluice/core';
import { Redis } from 'ioredis';
import { replayVector, vectorRuns } from '../../core/test/vectors.js';
import { RedisStore } from '../src/index.js';
import { type RedisProcess, startRedis } from './redis-server.js';

let server: RedisProcess;
let client: Redis;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: false });
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

describe('redis-cell vectors on RedisStore (client clock)', () => {
  it.each(vectorRuns())('$label', async (run) => {
    const store = new RedisStore({ client, clock: 'client' });
    expect(await replayVector(run, store, `vec-${Math.random()}`)).toEqual(
      run.steps.map((s) => s.cell),
    );
  });
});

it('smoke: every algorithm admits up to its limit then denies', async () => {
  const algorithms = [
    gcra({ rate: 3, period: '1m' }),
    cellThrottle(2, 3, 60),
    leakyBucket({ capacity: 3, leakRate: 0.05 }),
    fixedWindow({ limit: 3, window: '1m' }),
    slidingWindow({ limit: 3, window: '1m' }),
    slidingLog({ limit: 3, window: '1m' }),
  ];
  for (const algorithm of algorithms) {
    const limiter = new RateLimiter({
      algorithm,
      store: new RedisStore({ client }),
      prefix: `smoke-${algorithm.kind}-${Math.random()}`,
    });
    const allowed = [];
    for (let i = 0; i < 5; i++) allowed.push((await limiter.consume('k')).allowed);
    expect({ algorithm: algorithm.description, allowed }).toEqual({
      algorithm: algorithm.description,
      allowed: [true, true, true, false, false],
    });
  }
});
