// The coalesced path: many decisions asked for in one tick are sent as few batch script
// calls, and decide exactly as the same calls made one at a time (and as MemoryStore).
import {
  type Decision,
  fixedWindow,
  gcra,
  MemoryStore,
  RateLimiter,
  slidingLog,
  slidingWindow,
} from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { EPOCH, type RedisProcess, scriptCalls, startRedis } from '@sluice/test-kit';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { MAX_BATCH } from '../src/batching/engine.js';
import { RedisStore } from '../src/index.js';
import { keySlot } from '../src/redis-key.js';

let server: RedisProcess;
let client: Redis;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ port: server.port, host: '127.0.0.1' });
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

const algorithms: [string, () => Algorithm][] = [
  ['gcra 5/s burst 3', () => gcra({ rate: 5, period: '1s', burst: 3 })],
  ['gcra 30/s burst 3 (fractional TAT)', () => gcra({ rate: 30, period: '1s', burst: 3 })],
  ['fixed window 4 / 1s', () => fixedWindow({ limit: 4, window: '1s' })],
  ['sliding window 6 / 1s', () => slidingWindow({ limit: 6, window: '1s' })],
  ['sliding log 5 / 1s', () => slidingLog({ limit: 5, window: '1s' })],
];

describe.each(algorithms)('%s: 1000 concurrent calls on 50 keys', (_label, make) => {
  it('decide exactly like the sequential path and like MemoryStore', async () => {
    const algorithm = make();
    const calls = Array.from({ length: 1000 }, (_, i) => ({
      key: `k${(i * 7919) % 50}`,
      cost: i % 11 === 0 ? 0 : i % 13 === 0 ? 2 : 1,
      t: EPOCH + Math.floor(i / 100) * 37,
    }));
    let now = EPOCH;
    const clock = () => now;
    const prefix = `b-${Math.random()}`;
    const limiter = (store: RedisStore | MemoryStore, p: string) =>
      new RateLimiter({ algorithm, store, prefix: p, clock, onStoreError: 'deny' });
    const batched = limiter(new RedisStore({ client, clock: 'client', timeoutMs: 5000 }), prefix);
    const sequential = limiter(
      new RedisStore({ client, clock: 'client', timeoutMs: 5000 }),
      `${prefix}-seq`,
    );
    const memory = limiter(new MemoryStore(), prefix);

    // Batched: 10 ticks of 100 calls each, every call of a tick made before any reply.
    const before = await scriptCalls(client);
    const got: Decision[] = [];
    for (let tick = 0; tick < 10; tick++) {
      const inTick = calls.slice(tick * 100, tick * 100 + 100);
      now = inTick[0]!.t;
      got.push(...(await Promise.all(inTick.map((c) => batched.consume(c.key, { cost: c.cost })))));
    }
    const used = (await scriptCalls(client)) - before;
    // At most one EVAL per tick loads a script, plus the batches themselves.
    expect(used).toBeLessThanOrEqual(10 * Math.ceil(100 / MAX_BATCH) + 1);

    const seq: Decision[] = [];
    const mem: Decision[] = [];
    for (const c of calls) {
      now = c.t;
      seq.push(await sequential.consume(c.key, { cost: c.cost }));
      mem.push(await memory.consume(c.key, { cost: c.cost }));
    }
    expect(got).toEqual(seq);
    expect(got).toEqual(mem);
    expect(got.some((d) => !d.allowed)).toBe(true);
    expect(got.some((d) => d.allowed)).toBe(true);
  });
});

it('more than MAX_BATCH calls in one tick split into batches, call order kept per key', async () => {
  const algorithm = gcra({ rate: 1, period: '1h', burst: 300 });
  const limiter = new RateLimiter({
    algorithm,
    store: new RedisStore({ client, clock: 'client', timeoutMs: 5000 }),
    prefix: `split-${Math.random()}`,
    clock: () => EPOCH,
    onStoreError: 'deny',
  });
  const n = MAX_BATCH * 2 + 17;
  const decisions = await Promise.all(Array.from({ length: n }, () => limiter.consume('one')));
  expect(decisions.map((d) => d.remaining)).toEqual(
    Array.from({ length: n }, (_, i) => Math.max(0, 300 - i - 1)),
  );
  expect(decisions.map((d) => d.allowed)).toEqual(Array.from({ length: n }, (_, i) => i < 300));
});

it('different limiters (algorithms, clocks) in one tick each get their own decisions', async () => {
  const server = new RedisStore({ client, timeoutMs: 5000 });
  const a = new RateLimiter({
    algorithm: gcra({ rate: 2, period: '1m' }),
    store: server,
    prefix: `x-${Math.random()}`,
  });
  const b = new RateLimiter({
    algorithm: gcra({ rate: 5, period: '1m' }),
    store: server,
    prefix: `y-${Math.random()}`,
  });
  const c = new RateLimiter({
    algorithm: fixedWindow({ limit: 1, window: '1m' }),
    store: server,
    prefix: `z-${Math.random()}`,
  });
  const all = await Promise.all([
    ...Array.from({ length: 4 }, () => a.consume('k')),
    ...Array.from({ length: 7 }, () => b.consume('k')),
    ...Array.from({ length: 3 }, () => c.consume('k')),
  ]);
  expect(all.map((d) => d.allowed)).toEqual([
    true,
    true,
    false,
    false,
    true,
    true,
    true,
    true,
    true,
    false,
    false,
    true,
    false,
    false,
  ]);
});

it('a key that fails in the script fails its own call only', async () => {
  const prefix = `err-${Math.random()}`;
  const store = new RedisStore({ client, clock: 'client', timeoutMs: 5000 });
  const algorithm = gcra({ rate: 10, period: '1s' });
  await client.hset(store.keyFor(`${prefix}:bad`), 'f', 'v'); // GET on a hash: WRONGTYPE
  const results = await Promise.allSettled(
    ['a', 'bad', 'b'].map((k) => store.consume(`${prefix}:${k}`, algorithm, 1, EPOCH)),
  );
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  // A StoreKeyError (the key only, not the store), by kind: no key text.
  const reason = (results[1] as PromiseRejectedResult).reason as Error;
  expect(reason.name).toBe('StoreKeyError');
  expect(reason.message).toMatch(/gcra\(10 per 1000 ms.*another Redis type/);
  expect(reason.message).not.toContain(prefix);
});

it('a key that fails in the single-key script fails its own call with a StoreKeyError too', async () => {
  const prefix = `err1-${Math.random()}`;
  const store = new RedisStore({ client, clock: 'client', timeoutMs: 5000 });
  const algorithm = gcra({ rate: 10, period: '1s' });
  await client.hset(store.keyFor(`${prefix}:bad`), 'f', 'v');
  const error = await Promise.resolve(store.consume(`${prefix}:bad`, algorithm, 1, EPOCH)).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.name).toBe('StoreKeyError');
  expect(error?.message).not.toContain(prefix);
});

// An Algorithm the store has no Lua twin for (a custom kind), or whose params cannot be
// sent, fails its own calls only: the calls beside it in the same tick are decided, and the
// flush goes on (nothing is thrown from its setImmediate).
function custom(kind: string, params: readonly number[] | undefined): Algorithm {
  return {
    kind: kind as Algorithm['kind'],
    limit: 1,
    params: params as readonly number[],
    description: `custom ${kind}`,
    step: () => {
      throw new Error('not called by RedisStore');
    },
  };
}

it('a kind with no Lua twin rejects with a TypeError naming it; the calls beside it are decided', async () => {
  const prefix = `custom-${Math.random()}`;
  const store = new RedisStore({ client, clock: 'client', timeoutMs: 1000 });
  const algorithm = gcra({ rate: 10, period: '1s' });
  // A custom call opens the tick's first batch; another comes after a GCRA call.
  const results = await Promise.allSettled([
    store.consume(`${prefix}:x`, custom('token-bucket-v2', [1, 2]), 1, EPOCH),
    store.consume(`${prefix}:a`, algorithm, 1, EPOCH),
    store.consume(`${prefix}:y`, custom('constructor', []), 1, EPOCH),
  ]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'rejected']);
  for (const [i, kind] of [
    [0, 'token-bucket-v2'],
    [2, 'constructor'],
  ] as const) {
    const reason = (results[i] as PromiseRejectedResult).reason;
    expect(reason).toBeInstanceOf(TypeError);
    expect(String(reason)).toContain(`"${kind}"`);
  }
  expect((results[1] as PromiseFulfilledResult<unknown>).value).toMatchObject({
    allowed: true,
    remaining: 9,
  });
});

it('a batch that cannot be sent fails its own calls; the batches after it are sent', async () => {
  const prefix = `unsendable-${Math.random()}`;
  const store = new RedisStore({ client, clock: 'client', timeoutMs: 1000 });
  const algorithm = gcra({ rate: 10, period: '1s' });
  // A known kind with no params: building the script's arguments throws.
  const results = await Promise.allSettled([
    store.consume(`${prefix}:x`, custom('gcra', undefined), 1, EPOCH),
    store.consume(`${prefix}:a`, algorithm, 1, EPOCH),
  ]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
  expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(TypeError);
});

it('reset after consumes in the same tick runs after them', async () => {
  const limiter = new RateLimiter({
    algorithm: gcra({ rate: 1, period: '1h', burst: 2 }),
    store: new RedisStore({ client, timeoutMs: 5000 }),
    prefix: `reset-${Math.random()}`,
  });
  const consumed = [limiter.consume('k'), limiter.consume('k')];
  await limiter.reset('k');
  await Promise.all(consumed);
  expect((await limiter.consume('k')).remaining).toBe(1);
});

// (Not '{}{x}': Redis hashes the whole key when the first tag is empty, cluster-key-slot
// hashes '{x'; redisKey never builds an empty tag.)
it('keySlot equals cluster-key-slot for tagged, untagged and non-ASCII keys', () => {
  const keys = [
    '',
    'a',
    'user:1',
    '{user:1}',
    'p{}x',
    'p{a}{b}',
    'x{y',
    'x}y{z}',
    '{é}',
    'ключ',
    '{👍}tail',
  ];
  for (let i = 0; i < 2000; i++) keys.push(`sl:{user:${i}}`, `{r${i * 31}}`);
  for (const key of keys) expect([key, keySlot(key)]).toEqual([key, calculateSlot(key)]);
});

it('GCRA stores a whole-ms or µs-grid TAT as an int-encoded integer, decides like MemoryStore', async () => {
  for (const algorithm of [
    gcra({ rate: 1e6, period: '1s', burst: 5 }), // 1 µs interval: fractional ms TAT
    gcra({ rate: 3, period: '1s', burst: 2 }), // 333.33 ms interval: stays %.17g text
    gcra({ rate: 100, period: '1m' }), // whole ms
  ]) {
    let now = EPOCH;
    const clock = () => now;
    const prefix = `enc-${Math.random()}`;
    const store = new RedisStore({ client, clock: 'client', timeoutMs: 5000 });
    const redis = new RateLimiter({ algorithm, store, prefix, clock, onStoreError: 'deny' });
    const memory = new RateLimiter({ algorithm, store: new MemoryStore(), prefix, clock });
    const got: Decision[] = [];
    const want: Decision[] = [];
    for (let i = 0; i < 40; i++) {
      now = EPOCH + [0, 0, 1, 0, 3, 200, 0, 1][i % 8]! * (i + 1);
      got.push(await redis.consume('k', { cost: i % 5 === 4 ? 2 : 1 }));
      want.push(await memory.consume('k', { cost: i % 5 === 4 ? 2 : 1 }));
    }
    expect(got).toEqual(want);
    const encoding = await client.object('ENCODING', store.keyFor(`${prefix}:k`));
    expect([algorithm.description, encoding]).toEqual([
      algorithm.description,
      algorithm.ticksPerMs === 1 || 1000 % algorithm.ticksPerMs === 0 ? 'int' : 'embstr',
    ]);
  }
});

it('calls of one tick that share (now, cost), then differ, decide like MemoryStore', async () => {
  // The batch sends one (now, cost) pair for all its calls while they agree, and every
  // call's pair from the first that differs: both shapes in one tick.
  const algorithm = gcra({ rate: 10, period: '1s', burst: 4 });
  const prefix = `shared-${Math.random()}`;
  const clock = () => EPOCH;
  const redis = new RateLimiter({
    algorithm,
    store: new RedisStore({ client, clock: 'client', timeoutMs: 5000 }),
    prefix,
    clock,
    onStoreError: 'deny',
  });
  const memory = new RateLimiter({ algorithm, store: new MemoryStore(), prefix, clock });
  const calls = [
    ...Array.from({ length: 40 }, (_, i) => ({ key: `k${i % 7}`, cost: 1 })),
    { key: 'k1', cost: 2 },
    { key: 'k2', cost: 0 },
    ...Array.from({ length: 10 }, (_, i) => ({ key: `k${i % 3}`, cost: 1 })),
  ];
  const run = (l: RateLimiter) => Promise.all(calls.map((c) => l.consume(c.key, { cost: c.cost })));
  const before = await scriptCalls(client);
  const got = await run(redis);
  expect((await scriptCalls(client)) - before).toBe(1);
  expect(got).toEqual(await run(memory));
  // Uniform batches alone (every call cost 1, the server's clock) decide too.
  const uniform = new RateLimiter({
    algorithm,
    store: new RedisStore({ client, timeoutMs: 5000 }),
    prefix: `${prefix}-u`,
  });
  const all = await Promise.all(Array.from({ length: 12 }, (_, i) => uniform.consume(`u${i % 3}`)));
  expect(all.every((d) => d.allowed)).toBe(true);
  expect(all.map((d) => d.remaining)).toEqual(
    Array.from({ length: 12 }, (_, i) => 3 - Math.floor(i / 3)),
  );
});

it('an auto-pipelining client: one EVALSHA per tick, and batches of later ticks do not wait for it', async () => {
  const piped = new Redis({ port: server.port, host: '127.0.0.1', enableAutoPipelining: true });
  try {
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 1, period: '1h', burst: 100 }),
      store: new RedisStore({ client: piped, timeoutMs: 5000 }),
      prefix: `piped-${Math.random()}`,
      onStoreError: 'deny',
    });
    const before = await scriptCalls(client);
    const first = await Promise.all(Array.from({ length: 50 }, () => limiter.consume('k')));
    expect((await scriptCalls(client)) - before).toBe(1);
    expect(first.map((d) => d.remaining)).toEqual(Array.from({ length: 50 }, (_, i) => 99 - i));
    // Two ticks' batches while Redis holds every reply back (CLIENT PAUSE): ioredis's
    // auto-pipeline would send the second only after the first answered; sent directly,
    // the second is written while the first is still waiting.
    // The limiter's operator-entry snapshot reads the version on its own (after subscribing,
    // then every 5 s): let those replies in first, and below compare the two EVALSHAs' queue
    // lengths with each other, not with 0 (a version read may still share the queue).
    const queue = () => (piped as unknown as { commandQueue: { length: number } }).commandQueue;
    for (let i = 0; i < 100 && queue().length > 0; i++) await new Promise((r) => setTimeout(r, 10));
    await client.call('CLIENT', 'PAUSE', '300', 'ALL');
    const sent: { name: string; queued: number }[] = [];
    const spy = jest.spyOn(piped, 'sendCommand').mockImplementation(function (
      this: Redis,
      command,
      stream,
    ) {
      sent.push({ name: command.name, queued: queue().length });
      return Redis.prototype.sendCommand.call(this, command, stream);
    });
    const a = limiter.consume('k');
    await new Promise((r) => setImmediate(r));
    const b = limiter.consume('k');
    await new Promise((r) => setImmediate(r));
    spy.mockRestore();
    const [da, db] = await Promise.all([a, b]);
    const scripts = sent.filter((c) => c.name === 'evalsha');
    expect(scripts).toHaveLength(2);
    // The second was written while the first still waited for its reply.
    expect(scripts[1]!.queued).toBeGreaterThan(scripts[0]!.queued);
    expect([da.remaining, db.remaining]).toEqual([49, 48]);
  } finally {
    piped.disconnect();
  }
});

it("honours the client's keyPrefix, as client.evalsha does", async () => {
  const prefixed = new Redis({ port: server.port, host: '127.0.0.1', keyPrefix: 'app:' });
  try {
    const store = new RedisStore({ client: prefixed, timeoutMs: 5000 });
    const key = `kp-${Math.random()}`;
    await Promise.all([store.consume(key, gcra({ rate: 1, period: '1h' }), 1, EPOCH)]);
    expect(await client.exists(`app:${store.keyFor(key)}`)).toBe(1);
    expect(await client.exists(store.keyFor(key))).toBe(0);
  } finally {
    prefixed.disconnect();
  }
});
