import { inspect } from 'node:util';
import {
  cellThrottle,
  fixedWindow,
  gcra,
  Limit,
  leakyBucket,
  MemoryStore,
  RateLimiter,
  resolveLimitInput,
  SluiceConfigError,
  slidingLog,
  slidingWindow,
  ThrottleRegistry,
  tokenBucket,
} from '@sluice/core';
import { HttpLimiter } from '@sluice/core/http';
import { Cluster, Redis } from 'ioredis';
import * as express from '../../express/src/index.js';
import { guard as fastifyGuard } from '../../fastify/src/guards.js';
import * as koa from '../../koa/src/index.js';
import { RedisStore } from '../src/index.js';

// No error text of sluice contains a secret from the value it rejects: every constructor
// and every option is given values that carry a password (ioredis clients, a Redis URL, an
// object with a password field, an array of them), and each error's message, stack and
// util.inspect() output is searched for it.

const SECRET = 'hunter2-s3cr3t-pw';
const url = `redis://:${SECRET}@127.0.0.1:1/0`;

let redis: Redis;
let cluster: Cluster;

beforeAll(() => {
  redis = new Redis(url, { lazyConnect: true });
  cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], {
    lazyConnect: true,
    redisOptions: { password: SECRET },
  });
});

afterAll(() => {
  redis.disconnect();
  cluster.disconnect();
});

/** Values that carry the secret. */
const carriers = (): [string, unknown][] => [
  ['an ioredis Redis client', redis],
  ['an ioredis Cluster client', cluster],
  ['a Redis URL with a password', url],
  ['an object with a password', { host: '127.0.0.1', password: SECRET, url }],
  ['an array of them', [url, { password: SECRET }]],
  ['a long string', `${SECRET} `.repeat(10)],
  ['a Map', new Map([['password', SECRET]])],
  ['an object keyed by the URL', { [url]: SECRET }],
];

const algorithm = gcra({ rate: 1, period: '1s' });

/** Builders by name: each takes the options (or the argument) to try. */
const builders: [string, Record<string, unknown>, (o: unknown) => unknown][] = [
  ['gcra', { rate: 1, period: '1s', burst: 1 }, (o) => gcra(o as never)],
  ['leakyBucket', { capacity: 1, leakRate: 1 }, (o) => leakyBucket(o as never)],
  [
    'tokenBucket',
    { capacity: 1, refillRate: 1, refillInterval: 1000 },
    (o) => tokenBucket(o as never),
  ],
  ['fixedWindow', { limit: 1, window: 1000 }, (o) => fixedWindow(o as never)],
  ['slidingWindow', { limit: 1, window: 1000 }, (o) => slidingWindow(o as never)],
  ['slidingLog', { limit: 1, window: 1000 }, (o) => slidingLog(o as never)],
  ['MemoryStore', { maxKeys: 1 }, (o) => new MemoryStore(o as never)],
  [
    'RateLimiter',
    {
      algorithm,
      store: new MemoryStore(),
      prefix: 'p',
      clock: Date.now,
      sleep: async () => undefined,
      onStoreError: 'deny',
      logger: console,
      breaker: { cooldownMs: 1 },
    },
    (o) => new RateLimiter(o as never),
  ],
  [
    'HttpLimiter',
    {
      limit: '1/s',
      algorithm: 'gcra',
      store: new MemoryStore(),
      prefix: 'p',
      ipv6Subnet: 64,
      headers: 'legacy',
      message: 'm',
      statusCode: 429,
      onStoreError: 'deny',
      logger: console,
      breaker: {},
      throttles: new ThrottleRegistry(),
      clock: Date.now,
      user: () => 1,
      key: () => 'k',
      skip: () => false,
      onLimited: () => undefined,
    },
    (o) => new HttpLimiter(o as never),
  ],
  ['express rateLimit', { limit: '1/s', handler: () => 1 }, (o) => express.rateLimit(o as never)],
  ['koa rateLimit', { limit: '1/s', handler: () => 1 }, (o) => koa.rateLimit(o as never)],
  [
    'fastify plugin',
    { limit: '1/s', hook: 'onRequest', errorResponseBuilder: () => 1 },
    (o) => fastifyGuard(o as never, 'global', 'the @sluice/fastify plugin options'),
  ],
  [
    'RedisStore',
    { client: null, prefix: 'p', hashTag: true, clock: 'client', timeoutMs: 10 },
    (o) => new RedisStore(o as never),
  ],
];

/** Every error `build` throws for every carrier, as the option and the error's texts. */
function errorsOf(build: () => unknown): Error | undefined {
  try {
    build();
  } catch (error) {
    return error as Error;
  }
  return undefined;
}

function expectNoSecret(error: Error | undefined): void {
  if (error === undefined) return;
  for (const text of [error.message, String(error.stack), inspect(error), String(error)]) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('hunter2');
  }
}

describe('no error text contains a secret from the value it rejects', () => {
  const cases = builders.flatMap(([name, valid, build]) =>
    Object.keys(valid).map((option) => [name, option, valid, build] as const),
  );

  it.each(cases)('%s: option %s', (_name, option, valid, build) => {
    let thrown = 0;
    for (const [, value] of carriers()) {
      const options = { ...valid, [option]: value };
      if (valid.client === null && option !== 'client') options.client = redis;
      const error = errorsOf(() => build(options));
      if (error !== undefined) thrown++;
      expectNoSecret(error);
    }
    expect(thrown).toBeGreaterThan(0);
  });

  it.each(builders)('%s: a carrier as the whole argument', (_name, _valid, build) => {
    let thrown = 0;
    for (const [, value] of carriers()) {
      const error = errorsOf(() => build(value));
      if (error !== undefined) thrown++;
      expectNoSecret(error);
    }
    expect(thrown).toBeGreaterThan(0);
  });

  it('the other entry points', () => {
    for (const [, value] of carriers()) {
      const errors = [
        errorsOf(() => resolveLimitInput(value as never)),
        errorsOf(() => new ThrottleRegistry().define('x', value as never)),
        errorsOf(() => new ThrottleRegistry().define(value as never, () => [])),
        errorsOf(() => Limit.perMinute(value as never)),
        errorsOf(() => Limit.perMinute(1).by(value as never)),
        errorsOf(() => cellThrottle(value as never, 1, 1)),
        errorsOf(() => express.throttle(value as never)),
        errorsOf(() => koa.throttle(value as never)),
        errorsOf(() => express.Throttle(value as never)),
      ];
      for (const error of errors) expectNoSecret(error);
    }
  });
});

describe('a Redis client where a store or options belong', () => {
  it.each([
    ['RateLimiter', () => new RateLimiter({ algorithm, store: redis as never })],
    ['HttpLimiter', () => new HttpLimiter({ store: redis as never })],
    ['express', () => express.rateLimit({ store: cluster as never })],
  ])('%s: says to wrap it in a RedisStore', (_name, build) => {
    const error = errorsOf(build) as SluiceConfigError;
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect(error.option).toBe('store');
    expect(error.message).toMatch(
      /got an ioredis (Redis|Cluster) client; wrap it: `new RedisStore\(\{ client \}\)`/,
    );
    expect(error.message.length).toBeLessThan(200);
  });

  it('new RedisStore(client) says new RedisStore({ client })', () => {
    const error = errorsOf(() => new RedisStore(redis as never)) as SluiceConfigError;
    expect(error.message).toBe(
      'sluice: invalid option "options": expected an object { client, … }, got an ioredis ' +
        'Redis client; pass the client as an option: `new RedisStore({ client })`',
    );
  });

  it('an unknown RedisStore option is named, with what to write instead', () => {
    expect(() => new RedisStore({ client: redis, prefx: 'a' } as never)).toThrow(
      'sluice: unknown option "prefx" in new RedisStore(): did you mean "prefix"?',
    );
    expect(() => new RedisStore({ client: redis, keyPrefix: 'a' } as never)).toThrow(
      /unknown option "keyPrefix" in new RedisStore\(\)/,
    );
  });
});
