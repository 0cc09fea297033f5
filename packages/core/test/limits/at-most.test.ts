// RateLimiter.consumeAtMost: partial grants in one call, its refusals, penalties, failure modes.
import { EPOCH } from '@sluice/test-kit';
import {
  concurrency,
  fixedWindow,
  gcra,
  Limit,
  MemoryStore,
  penalty,
  RateLimiter,
  SluiceConfigError,
} from '../../src/index.js';
import { FailSafeStore, limitAlgorithm, parsePenalty, type Store } from '../../src/store-api.js';

describe('RateLimiter.consumeAtMost', () => {
  let now = EPOCH;
  const clock = () => now;
  beforeEach(() => {
    now = EPOCH;
  });

  it('grants what is left, up to max, in one call: cost is the grant', async () => {
    const limiter = new RateLimiter({ algorithm: fixedWindow({ limit: 10, window: 1000 }), clock });
    expect(await limiter.consumeAtMost('jobs', 4)).toMatchObject({
      allowed: true,
      cost: 4,
      remaining: 6,
    });
    expect(await limiter.consumeAtMost('jobs', 25)).toMatchObject({
      allowed: true,
      cost: 6,
      remaining: 0,
    });
    const none = await limiter.consumeAtMost('jobs', 3);
    expect(none).toEqual({
      allowed: false,
      limit: 10,
      remaining: 0,
      retryAfterMs: 1000,
      resetAfterMs: 1000,
      cost: 0,
    });
    now += 1000;
    expect(await limiter.consumeAtMost('jobs', 3)).toMatchObject({ allowed: true, cost: 3 });
  });

  it('on GCRA: a grant of 0 waits one emission interval, exactly', async () => {
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 3000, period: '1s', burst: 5 }),
      clock,
    });
    expect((await limiter.consumeAtMost('k', 9)).cost).toBe(5);
    const none = await limiter.consumeAtMost('k', 9);
    expect(none.cost).toBe(0);
    expect(none.retryAfterMs).toBeCloseTo(1 / 3, 12);
  });

  it('a grant of 0 is no offence: blockFor does not start on it', async () => {
    const algorithm = penalty(gcra({ rate: 2, period: '1s' }), parsePenalty(60_000));
    const limiter = new RateLimiter({ algorithm, clock });
    expect((await limiter.consumeAtMost('k', 5)).cost).toBe(2);
    const none = await limiter.consumeAtMost('k', 5);
    expect(none).toMatchObject({ allowed: false, cost: 0, retryAfterMs: 500 });
    now += 500; // not blocked: one unit is back after one interval
    expect(await limiter.consumeAtMost('k', 5)).toMatchObject({ allowed: true, cost: 1 });
    // consume's denial is an offence, and then consumeAtMost grants nothing during the block
    expect((await limiter.consume('k')).retryAfterMs).toBe(60_000);
    now += 10_000;
    expect(await limiter.consumeAtMost('k', 5)).toMatchObject({ cost: 0, retryAfterMs: 50_000 });
  });

  it('refuses a concurrency or adaptive limit with a SluiceConfigError naming algorithm', () => {
    const leases = new RateLimiter({ algorithm: concurrency({ limit: 3, leaseMs: 1000 }) });
    expect(() => leases.consumeAtMost('k', 1)).toThrow(SluiceConfigError);
    expect(() => leases.consumeAtMost('k', 1)).toThrow(/"algorithm"/);
    const adaptive = new RateLimiter({ algorithm: limitAlgorithm(Limit.adaptive())! });
    expect(() => adaptive.consumeAtMost('k', 1)).toThrow(/"algorithm"/);
  });

  it('refuses a store without consumeAtMost at the call, naming its class, not its keys', () => {
    class PlainStore implements Store {
      consume = new MemoryStore().consume.bind(new MemoryStore());
      reset(): void {}
    }
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 1, period: '1s' }),
      store: new PlainStore(),
    });
    let error: unknown;
    try {
      limiter.consumeAtMost('secret-user-42', 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as SluiceConfigError).option).toBe('store');
    expect((error as Error).message).toMatch(/PlainStore/);
    expect((error as Error).message).not.toMatch(/secret-user-42/);
  });

  it.each([0, -1, 1.5, Number.NaN, '3'])('a max of %p is a TypeError', (max) => {
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 1, period: '1s' }) });
    expect(() => limiter.consumeAtMost('k', max as number)).toThrow(TypeError);
  });

  it.each([
    ['allow', { allowed: true, cost: 4 }],
    ['deny', { allowed: false, cost: 0 }],
    ['insurance', { allowed: true, cost: 2 }],
  ] as const)('a failing store: onStoreError %s decides the grant', async (mode, expected) => {
    const failing: Store = {
      consume: () => Promise.reject(new Error('down')),
      consumeAtMost: () => Promise.reject(new Error('down')),
      reset: () => undefined,
    };
    const logger = { warn: () => undefined, error: () => undefined };
    const store = new FailSafeStore({ store: failing, onStoreError: mode, logger });
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 2, window: 1000 }),
      store,
      onStoreError: mode,
      logger,
      clock,
    });
    expect(await limiter.consumeAtMost('k', 4)).toMatchObject(expected);
  });
});
