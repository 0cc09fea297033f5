// The over-limit cache on a real redis-server ("Keys already over the limit are
// remembered in-process"): a key Redis has denied is answered in process until its retry
// time, with the decision Redis would give, and no script call.
import {
  type Decision,
  fixedWindow,
  gcra,
  RateLimiter,
  slidingLog,
  slidingWindow,
} from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { EPOCH, type RedisProcess, scriptCalls, startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

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

/** ms between calls: steps of 0 to 4 ms, and 450 ms every 40 calls. */
const steps = (i: number) => (i % 40 === 0 ? 450 : (i * 7) % 5);
/** For the fractional GCRA (T = 1/3 ms): mostly no time, 1 ms or 3 ms now and then. */
const fine = (i: number) => (i % 40 === 0 ? 3 : i % 30 === 0 ? 1 : 0);

const algorithms: [string, Algorithm, (i: number) => number][] = [
  ['gcra 5/s burst 3', gcra({ rate: 5, period: '1s', burst: 3 }), steps],
  ['gcra 3000/s burst 7 (fractional TAT)', gcra({ rate: 3000, period: '1s', burst: 7 }), fine],
  ['fixed window 4 / 1s', fixedWindow({ limit: 4, window: '1s' }), steps],
  ['sliding window 6 / 1s', slidingWindow({ limit: 6, window: '1s' }), steps],
  ['sliding log 5 / 1s', slidingLog({ limit: 5, window: '1s' }), steps],
];

describe.each(algorithms)('%s on Redis', (_label, algorithm, step) => {
  it('a key over its limit is denied without a script call, with the decision Redis gives without the cache', async () => {
    let now = EPOCH;
    const clock = () => now;
    const prefix = `ol-${Math.random()}`;
    const make = (p: string, overLimitCache?: false) =>
      new RateLimiter({
        algorithm,
        store: new RedisStore({ client, clock: 'client', timeoutMs: 5000 }),
        prefix: p,
        clock,
        onStoreError: 'deny',
        ...(overLimitCache === false ? { overLimitCache } : {}),
      });
    const cached = make(prefix);
    const plain = make(`${prefix}-plain`, false);
    // Bursts on 3 keys (costs 0, 1, 2 and limit + 1), with small steps in time.
    const calls = Array.from({ length: 300 }, (_, i) => ({
      key: `k${i % 3}`,
      cost: i % 17 === 0 ? 0 : i % 29 === 0 ? algorithm.limit + 1 : i % 7 === 0 ? 2 : 1,
      dt: step(i),
    }));
    /** Runs every call through `limiter`: its decisions and the script calls it made. */
    const drive = async (limiter: RateLimiter) => {
      now = EPOCH;
      const decisions: Decision[] = [];
      const before = await scriptCalls(client);
      for (const c of calls) {
        now += c.dt;
        decisions.push(await limiter.consume(c.key, { cost: c.cost }));
      }
      return { decisions, used: (await scriptCalls(client)) - before };
    };
    const { decisions: got, used } = await drive(cached);
    const { decisions: want, used: usedPlain } = await drive(plain);
    expect(got).toEqual(want);
    expect(usedPlain).toBe(calls.length);
    const denials = want.filter((d) => !d.allowed).length;
    expect(denials).toBeGreaterThan(calls.length / 4);
    // Most denials were answered in process.
    expect(used).toBeLessThan(calls.length - denials / 2);
  });
});

it("with Redis's own clock too: denied without a script call, retryAfterMs shrinking with the limiter's time; reset forgets", async () => {
  const algorithm = gcra({ rate: 2, period: '1m', burst: 2 });
  const limiter = new RateLimiter({
    algorithm,
    store: new RedisStore({ client }), // clock: 'server'
    prefix: `ol-server-${Math.random()}`,
  });
  await limiter.consume('u', { cost: 2 });
  const t0 = Date.now();
  const first = await limiter.consume('u');
  expect(first).toMatchObject({ allowed: false, remaining: 0 });
  expect(first.retryAfterMs).toBeGreaterThan(29_000);
  const before = await scriptCalls(client);
  await new Promise((r) => setTimeout(r, 30));
  const again = await limiter.consume('u');
  const elapsed = Date.now() - t0;
  expect(await scriptCalls(client)).toBe(before);
  expect(again.allowed).toBe(false);
  expect(first.retryAfterMs - again.retryAfterMs).toBeGreaterThanOrEqual(25);
  // The cache counts from the limiter's time of the denied call.
  expect(first.retryAfterMs - again.retryAfterMs).toBeLessThanOrEqual(elapsed);
  expect(first.resetAfterMs - again.resetAfterMs).toBe(first.retryAfterMs - again.retryAfterMs);
  await limiter.reset('u');
  expect((await limiter.consume('u')).allowed).toBe(true);
  expect(await scriptCalls(client)).toBe(before + 1);
});
