import { EPOCH } from '@sluice/test-kit';
import { type Decision, fixedWindow, RateLimiter, type Store } from '../../src/index.js';
import type { Algorithm } from '../../src/store-api.js';

/** A store that fails (rejects) while `down` is true and counts calls otherwise. */
class FlakyStore implements Store {
  down = false;
  calls = 0;
  consume(_key: string, algorithm: Algorithm, cost: number): Promise<Decision> {
    this.calls++;
    if (this.down) return Promise.reject(new Error('connection refused'));
    return Promise.resolve({
      allowed: true,
      limit: algorithm.limit,
      remaining: 42,
      retryAfterMs: 0,
      resetAfterMs: 0,
      cost,
    });
  }
  reset(): Promise<void> {
    return this.down ? Promise.reject(new Error('connection refused')) : Promise.resolve();
  }
}

/** The breaker's fake monotonic clock (ms): tests move it past the cooldown by hand. */
const COOLDOWN_MS = 1000;

function setup(onStoreError?: 'insurance' | 'allow' | 'deny') {
  const store = new FlakyStore();
  const warnings: string[] = [];
  const time = { ms: 0 };
  const limiter = new RateLimiter({
    algorithm: fixedWindow({ limit: 2, window: '1m' }),
    store,
    clock: () => EPOCH,
    ...(onStoreError ? { onStoreError } : {}),
    logger: { warn: (message: string) => warnings.push(message) },
    breaker: { cooldownMs: COOLDOWN_MS, clock: () => time.ms },
  });
  /** Moves the breaker's clock past the cooldown: the next call is a probe. */
  const cooldown = () => {
    time.ms += COOLDOWN_MS;
  };
  return { store, warnings, limiter, cooldown };
}

describe('onStoreError', () => {
  it("'insurance' (default) limits in process while the store fails, then uses the store again", async () => {
    const { store, warnings, limiter, cooldown } = setup();
    store.down = true;
    const outage = [];
    for (let i = 0; i < 3; i++) outage.push((await limiter.consume('k')).allowed);
    expect(outage).toEqual([true, true, false]);
    // The breaker opened at the first failure: the other two never called the store.
    expect(store.calls).toBe(1);
    store.down = false;
    // Still within the cooldown: insurance decides, the store is not called.
    expect((await limiter.consume('k')).allowed).toBe(false);
    expect(store.calls).toBe(1);
    cooldown();
    const after = await limiter.consume('k');
    expect(after.remaining).toBe(42);
    expect(store.calls).toBe(2);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('connection refused');
  });

  it("'allow' admits every request while the store fails", async () => {
    const { store, limiter } = setup('allow');
    store.down = true;
    for (let i = 0; i < 5; i++)
      expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("'deny' denies every request while the store fails, with a retry interval", async () => {
    const { store, limiter } = setup('deny');
    store.down = true;
    const d = await limiter.consume('k');
    expect(d).toMatchObject({ allowed: false, remaining: 0 });
    expect(d.retryAfterMs).toBeGreaterThan(0);
  });

  it('logs once per outage, not once per request', async () => {
    const { store, warnings, limiter, cooldown } = setup('allow');
    store.down = true;
    for (let i = 0; i < 10; i++) await limiter.consume('k');
    // A failed probe is the same outage: no second line.
    cooldown();
    await limiter.consume('k');
    expect(warnings).toHaveLength(1);
    store.down = false;
    cooldown();
    await limiter.consume('k');
    expect(warnings).toHaveLength(2);
    store.down = true;
    await limiter.consume('k');
    expect(warnings).toHaveLength(3);
  });

  it('a store that throws synchronously is handled the same way, and reset never rejects', async () => {
    const { store, limiter } = setup('deny');
    store.consume = () => {
      throw new Error('boom');
    };
    expect((await limiter.consume('k')).allowed).toBe(false);
    store.down = true;
    await expect(limiter.reset('k')).resolves.toBeUndefined();
  });

  it('rejects an unknown policy at construction', () => {
    expect(
      () =>
        new RateLimiter({
          algorithm: fixedWindow({ limit: 1, window: 1000 }),
          store: new FlakyStore(),
          onStoreError: 'ignore' as never,
        }),
    ).toThrow(/onStoreError.*ignore/);
  });
});
