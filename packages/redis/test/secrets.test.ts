import {
  cellThrottle,
  fixedWindow,
  gcra,
  Limit,
  leakyBucket,
  MemoryStore,
  RateLimiter,
  SluiceConfigError,
  slidingLog,
  slidingWindow,
  ThrottleRegistry,
  tokenBucket,
} from '@sluice/core';
import { HttpLimiter } from '@sluice/core/http';
import { resolveLimitInput } from '@sluice/core/store';
import { expectNoSecret, SECRET, secretCarriers, thrownBy } from '@sluice/test-kit';
import { Cluster, Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

// No error text of sluice contains a secret from the value it rejects: every constructor
// and every option of the core and of RedisStore is given values that carry a password
// (real ioredis clients, a Redis URL, an object with a password field, an array of them),
// and each error's message, stack and util.inspect() output is searched for it. (The
// adapters' tests do the same for their options, with a client-shaped object.)

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

/** Values that carry the secret: the shared ones, and real ioredis clients. */
const carriers = () => secretCarriers(redis, cluster);

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
  [
    'RedisStore',
    { client: null, prefix: 'p', hashTag: true, clock: 'client', timeoutMs: 10 },
    (o) => new RedisStore(o as never),
  ],
];

describe('no error text contains a secret from the value it rejects', () => {
  const cases = builders.flatMap(([name, valid, build]) =>
    Object.keys(valid).map((option) => [name, option, valid, build] as const),
  );

  it.each(cases)('%s: option %s', (_name, option, valid, build) => {
    let thrown = 0;
    for (const [, value] of carriers()) {
      const options = { ...valid, [option]: value };
      if (valid.client === null && option !== 'client') options.client = redis;
      const error = thrownBy(() => build(options));
      if (error !== undefined) thrown++;
      expectNoSecret(error);
    }
    expect(thrown).toBeGreaterThan(0);
  });

  it.each(builders)('%s: a carrier as the whole argument', (_name, _valid, build) => {
    let thrown = 0;
    for (const [, value] of carriers()) {
      const error = thrownBy(() => build(value));
      if (error !== undefined) thrown++;
      expectNoSecret(error);
    }
    expect(thrown).toBeGreaterThan(0);
  });

  it('the other entry points', () => {
    for (const [, value] of carriers()) {
      const errors = [
        thrownBy(() => resolveLimitInput(value as never)),
        thrownBy(() => new ThrottleRegistry().define('x', value as never)),
        thrownBy(() => new ThrottleRegistry().define(value as never, () => [])),
        thrownBy(() => Limit.perMinute(value as never)),
        thrownBy(() => Limit.perMinute(1).by(value as never)),
        thrownBy(() => cellThrottle(value as never, 1, 1)),
      ];
      for (const error of errors) expectNoSecret(error);
    }
  });
});

describe('a Redis client where a store or options belong', () => {
  it.each([
    ['RateLimiter', () => new RateLimiter({ algorithm, store: redis as never })],
    ['HttpLimiter', () => new HttpLimiter({ store: redis as never })],
    ['HttpLimiter (Cluster)', () => new HttpLimiter({ store: cluster as never })],
  ])('%s: says to wrap it in a RedisStore', (_name, build) => {
    const error = thrownBy(build) as SluiceConfigError;
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect(error.option).toBe('store');
    expect(error.message).toMatch(
      /got an ioredis (Redis|Cluster) client; wrap it: `new RedisStore\(\{ client \}\)`/,
    );
    expect(error.message.length).toBeLessThan(200);
  });

  it('new RedisStore(client) says new RedisStore({ client })', () => {
    const error = thrownBy(() => new RedisStore(redis as never)) as SluiceConfigError;
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
