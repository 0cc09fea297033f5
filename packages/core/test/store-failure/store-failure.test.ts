import { EPOCH } from '@sluice/test-kit';
import {
  type Decision,
  fixedWindow,
  RateLimiter,
  SluiceConfigError,
  type Store,
} from '../../src/index.js';
import { type Algorithm, FailSafeStore } from '../../src/store-api.js';

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

describe('new FailSafeStore(options)', () => {
  const algorithm = fixedWindow({ limit: 1, window: '1m' });

  it('takes an options object: onStoreError defaults to insurance, logger to console', async () => {
    const flaky = new FlakyStore();
    flaky.down = true;
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const store = new FailSafeStore({ store: flaky });
      // 'insurance': an in-process store decides (limit 1: one admitted, then denied)
      expect((await store.consume('k', algorithm, 1, EPOCH)).allowed).toBe(true);
      expect((await store.consume('k', algorithm, 1, EPOCH)).allowed).toBe(false);
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });

  it('every option by name: deny, a logger, no over-limit cache, a breaker', async () => {
    const flaky = new FlakyStore();
    const seen: string[] = [];
    const store = new FailSafeStore({
      store: flaky,
      onStoreError: 'deny',
      logger: { warn: (m) => void seen.push(m) },
      overLimitCache: false,
      breaker: { cooldownMs: 5000, clock: () => 0 },
    });
    flaky.down = true;
    expect((await store.consume('k', algorithm, 1, EPOCH)).allowed).toBe(false);
    expect(seen).toHaveLength(1);
    expect(store.overLimitKeys).toBe(0);
  });

  it('names each unknown option, and a bad onStoreError, at construction', () => {
    const flaky = new FlakyStore();
    expect(() => new FailSafeStore({ store: flaky, policy: 'deny', cooldown: 1 } as never)).toThrow(
      /"policy".*"cooldown"|"cooldown".*"policy"/,
    );
    expect(() => new FailSafeStore({ store: flaky, onStoreError: 'open' as never })).toThrow(
      expect.objectContaining({ option: 'onStoreError' }),
    );
    expect(() => new FailSafeStore({ store: {} as never })).toThrow(
      expect.objectContaining({ option: 'store' }),
    );
    expect(() => new FailSafeStore(flaky as never)).toThrow(SluiceConfigError);
  });
});
