// RateLimiter.reserve (queue mode's core) under operator entries, on any store with
// operations: a banned or denied key books nothing and is refused at once, an allowed key
// is served at once (nothing booked), an override books at its own rate on the same key
// and `cancel()` gives that slot back exactly. Each store's tests call it.
import { gcra, LimitOperations, RateLimiter, type Store } from '@sluice/core';

/**
 * Defines the tests on the store `makeStore()` gives (a fresh key space each call). The
 * limiter's clock is fake, starting at the real time (a shared store prunes entries by the
 * caller's time, so entries must not look expired).
 */
export function describeReserveUnderOperations(makeStore: () => Store | Promise<Store>): void {
  async function setup() {
    const time = { now: Date.now() };
    const clock = () => time.now;
    const store = await makeStore();
    const ops = new LimitOperations({ store, clock });
    // One per minute, no burst: a second booking in the same minute waits 60 s.
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 1, period: '1m', burst: 1 }),
      store,
      clock,
    });
    return { time, ops, limiter };
  }

  it('a banned or denied key gets no reservation and books nothing', async () => {
    const { ops, limiter } = await setup();
    await ops.ban({ key: 'b' }, { for: '1h' });
    const banned = await limiter.reserve('b', { maxWait: '5m' });
    expect(banned).toMatchObject({ allowed: false, delayMs: 0 });
    expect(banned.decision.retryAfterMs).toBe(3_600_000);
    expect(await banned.cancel()).toBeUndefined();
    expect((await limiter.acquire('b', { timeoutMs: 120_000 })).allowed).toBe(false);
    await ops.deny({ key: 'd' });
    const denied = await limiter.reserve('d', { maxWait: '5m' });
    expect(denied).toMatchObject({ allowed: false, delayMs: 0 });
    expect(denied.decision.retryAfterMs).toBe(-1);
    // Nothing was booked while banned: once lifted, the key's whole quota is there.
    await ops.unban({ key: 'b' });
    expect(await limiter.reserve('b', { maxWait: 0 })).toMatchObject({
      allowed: true,
      delayMs: 0,
    });
  });

  it('an allowed key is served at once, however many it books', async () => {
    const { ops, limiter } = await setup();
    await ops.allow({ key: 'a' });
    for (let i = 0; i < 5; i++) {
      expect(await limiter.reserve('a', { maxWait: 0 })).toMatchObject({
        allowed: true,
        delayMs: 0,
      });
    }
    // Nothing was charged: once the allow is gone, the whole quota is there.
    await ops.remove('allow:key:a');
    expect(await limiter.reserve('a', { maxWait: 0 })).toMatchObject({
      allowed: true,
      delayMs: 0,
    });
    expect((await limiter.reserve('a', { maxWait: 0 })).allowed).toBe(false);
  });

  it("an override books at the override's rate, on the same key; cancel gives that slot back", async () => {
    const { ops, limiter } = await setup();
    expect((await limiter.reserve('o', { maxWait: 0 })).allowed).toBe(true);
    await ops.override({ key: 'o' }, '6/1m', { for: '1h' });
    // GCRA keeps its TAT (60 s ahead after the one booking): at 10 s a slot under a burst
    // of 6 (60 s), the next booking waits 10 s, the one after 20 s (not the configured 60 s).
    expect((await limiter.reserve('o', { maxWait: 0 })).allowed).toBe(false);
    const first = await limiter.reserve('o', { maxWait: '1m' });
    expect(first).toMatchObject({ allowed: true, delayMs: 10_000 });
    expect(first.decision.limit).toBe(6);
    const second = await limiter.reserve('o', { maxWait: '1m' });
    expect(second).toMatchObject({ allowed: true, delayMs: 20_000 });
    await second.cancel();
    expect(await limiter.reserve('o', { maxWait: '1m' })).toMatchObject({
      allowed: true,
      delayMs: 20_000,
    });
  });
}
