import { EPOCH } from '@sluice/test-kit';
import { type Decision, fixedWindow, gcra, MemoryStore, RateLimiter } from '../../src/index.js';
import type { Algorithm } from '../../src/store-api.js';

function fakeTime(start = EPOCH) {
  const time = { now: start, sleeps: [] as number[] };
  return {
    time,
    clock: () => time.now,
    sleep: async (ms: number) => {
      time.sleeps.push(ms);
      time.now += ms;
    },
  };
}

describe('RateLimiter', () => {
  it('consume takes cost units, peek takes none, reset restores the quota', async () => {
    const { clock } = fakeTime();
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }), clock });
    expect((await limiter.consume('a', { cost: 3 })).remaining).toBe(2);
    const peeked = await limiter.peek('a');
    expect(peeked).toMatchObject({ allowed: true, remaining: 2, cost: 0 });
    expect((await limiter.peek('a')).remaining).toBe(2);
    expect((await limiter.consume('a', { cost: 3 })).allowed).toBe(false);
    await limiter.reset('a');
    expect((await limiter.consume('a')).remaining).toBe(4);
  });

  it('prefixes keys, so two limiters with different prefixes on one store do not share a key', async () => {
    const store = new MemoryStore();
    const { clock } = fakeTime();
    const algorithm = fixedWindow({ limit: 1, window: '1m' });
    const a = new RateLimiter({ algorithm, store, prefix: 'a', clock });
    const b = new RateLimiter({ algorithm, store, prefix: 'b', clock });
    expect((await a.consume('k')).allowed).toBe(true);
    expect((await b.consume('k')).allowed).toBe(true);
    expect(store.inspect('a@fw:k')).toBeDefined();
    expect(store.inspect('b@fw:k')).toBeDefined();
    expect((await a.consume('k')).allowed).toBe(false);
  });

  it('throws a TypeError synchronously for a negative or fractional cost', () => {
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }) });
    expect(() => limiter.consume('a', { cost: -1 })).toThrow(TypeError);
    expect(() => limiter.consume('a', { cost: 1.5 })).toThrow(TypeError);
  });

  it('throws a TypeError synchronously for a second argument that is not an options object', () => {
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }) });
    expect(() => limiter.consume('a', -1 as never)).toThrow(
      'sluice: consume(key, options): options must be an object such as { cost: 2 }, got a number (-1) (for a cost, write consume(key, { cost: n }))',
    );
    for (const bad of [5, 'x', null, true, [1]]) {
      expect(() => limiter.consume('a', bad as never)).toThrow(TypeError);
      expect(() => limiter.acquire('a', bad as never)).toThrow(TypeError);
    }
    expect(() => limiter.consume('a', undefined)).not.toThrow();
  });

  it('uses the injected clock for every decision', async () => {
    const { time, clock } = fakeTime();
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 1, period: '10s' }), clock });
    expect((await limiter.consume('a')).allowed).toBe(true);
    const denied = await limiter.consume('a');
    expect(denied).toMatchObject({ allowed: false, retryAfterMs: 10_000 });
    time.now += 9_999;
    expect((await limiter.consume('a')).allowed).toBe(false);
    time.now += 1;
    expect((await limiter.consume('a')).allowed).toBe(true);
  });
});

/**
 * A limiter on `algorithm` with the fake clock and sleep. `afterSleep`, when given, runs
 * after each of the limiter's sleeps (another consumer acting while it waits).
 */
function limiterOnFakeTime(
  algorithm: Algorithm,
  afterSleep?: (limiter: RateLimiter) => Promise<unknown>,
) {
  const { time, clock, sleep } = fakeTime();
  const limiter: RateLimiter = new RateLimiter({
    algorithm,
    clock,
    sleep: afterSleep
      ? async (ms) => {
          await sleep(ms);
          await afterSleep(limiter);
        }
      : sleep,
  });
  return { time, limiter };
}

describe('RateLimiter.acquire (Redisson tryAcquire)', () => {
  it('waits retryAfterMs between tries and resolves the allowing decision', async () => {
    const { time, limiter } = limiterOnFakeTime(gcra({ rate: 1, period: '1s', burst: 1 }));
    await limiter.consume('a');
    const start = time.now;
    const decision = await limiter.acquire('a', { timeoutMs: 5000 });
    expect(decision.allowed).toBe(true);
    expect(time.sleeps).toEqual([1000]);
    expect(time.now - start).toBe(1000);
  });

  it('gives up at once with the last denial when the next try would fall past the timeout', async () => {
    const { time, limiter } = limiterOnFakeTime(gcra({ rate: 1, period: '1s', burst: 1 }));
    await limiter.consume('a');
    const decision = await limiter.acquire('a', { timeoutMs: 999 });
    expect(decision).toMatchObject({ allowed: false, retryAfterMs: 1000 });
    expect(time.sleeps).toEqual([]);
  });

  it('books its slot: a consumer acting during the wait cannot take it (one sleep, one call)', async () => {
    const others: Decision[] = [];
    const { time, limiter } = limiterOnFakeTime(
      gcra({ rate: 1, period: '1s', burst: 1 }),
      async (limiter) => others.push(await limiter.consume('a')),
    );
    await limiter.consume('a');
    const start = time.now;
    const decision = await limiter.acquire('a', { timeoutMs: 3500 });
    expect(decision.allowed).toBe(true);
    expect(time.sleeps).toEqual([1000]);
    expect(time.now - start).toBe(1000);
    // The consumer that came during the wait found the slot booked.
    expect(others.map((d) => d.allowed)).toEqual([false]);
  });

  it('on a window (no future slot) never sleeps past the deadline across several waits, and never spins', async () => {
    // Another consumer keeps taking the window right after each wait: the key stays busy.
    const { time, limiter } = limiterOnFakeTime(
      fixedWindow({ limit: 1, window: '1s' }),
      (limiter) => limiter.consume('a'),
    );
    await limiter.consume('a');
    const start = time.now;
    const decision = await limiter.acquire('a', { timeoutMs: 3500 });
    expect(decision.allowed).toBe(false);
    expect(time.now - start).toBeLessThanOrEqual(3500);
    expect(time.sleeps.length).toBe(3);
    expect(time.sleeps.every((ms) => ms >= 1)).toBe(true);
  });

  it('returns at once when the cost can never be admitted', async () => {
    const { time, limiter } = limiterOnFakeTime(gcra({ rate: 2, period: '1s' }));
    const decision = await limiter.acquire('a', { cost: 3, timeoutMs: 60_000 });
    expect(decision).toMatchObject({ allowed: false, retryAfterMs: -1 });
    expect(time.sleeps).toEqual([]);
  });

  it('waits exact fractional intervals rounded up to whole ms (3000/s)', async () => {
    const { time, limiter } = limiterOnFakeTime(gcra({ rate: 3000, period: '1s', burst: 1 }));
    await limiter.consume('a');
    const decision: Decision = await limiter.acquire('a', { timeoutMs: 10 });
    expect(decision.allowed).toBe(true);
    expect(time.sleeps).toEqual([1]);
  });
});

describe('RateLimiter.acquire argument checks', () => {
  it('throws a TypeError synchronously for a bad cost or timeout', () => {
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }) });
    expect(() => limiter.acquire('a', { cost: -2 })).toThrow(TypeError);
    expect(() => limiter.acquire('a', { timeoutMs: -1 })).toThrow(TypeError);
  });
});
