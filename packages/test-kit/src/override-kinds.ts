// What an override means beyond GCRA and windows, on any store with operations: a blockFor
// limit takes the new quota and keeps its block; a calendar quota keeps its calendar and
// count and takes a named override's count (a rate naming no limit leaves it); concurrency
// and adaptive limits are not rates, so override() refuses to name one (SluiceConfigError
// naming the kind). Each store's tests call it.
import {
  concurrency,
  gcra,
  Limit,
  LimitOperations,
  penalty,
  RateLimiter,
  type RequestView,
  SluiceConfigError,
  type Store,
} from '@sluice/core';
import { HttpLimiter, type HttpVerdict } from '@sluice/core/http';

/**
 * Defines the tests on the store `make()` gives (a fresh key space each call). Clocks are
 * fake, starting at the real time (a shared store prunes entries by the caller's time).
 */
export function describeOverrideKinds(make: () => Store | Promise<Store>): void {
  function view(over: Partial<RequestView> = {}): RequestView {
    return { method: 'GET', route: 'GET /a', ip: '10.0.0.1', headers: {}, raw: {}, ...over };
  }

  async function setup(options: ConstructorParameters<typeof HttpLimiter>[0]) {
    const time = { now: Date.now() };
    const store = await make();
    const clock = () => time.now;
    const limiter = new HttpLimiter({ store, clock, ...options });
    const ops = new LimitOperations({ store, clock });
    const check = async (over: Partial<RequestView> = {}) =>
      (await limiter.check(view(over))) as HttpVerdict;
    return { time, store, clock, limiter, ops, check };
  }

  describe('override of a blockFor limit', () => {
    it('takes the override quota and keeps its block', async () => {
      const { time, ops, check } = await setup({ limit: Limit.perMinute(2).blockFor('10m') });
      await check();
      await ops.override({ ip: '10.0.0.1' }, '5/1m', { for: '1h' });
      const v = await check();
      // GCRA keeps its TAT: the request before (30 s of the old rate) carries over
      expect(v.decisions[0]).toMatchObject({ allowed: true, limit: 5, remaining: 1 });
      expect((await check()).allowed).toBe(true);
      const over = await check();
      expect(over.allowed).toBe(false);
      // over the new quota: blocked for the configured 10 minutes, not for a refill
      expect(over.decisions[0]!.retryAfterMs).toBe(600_000);
      time.now += 120_000;
      expect((await check()).allowed).toBe(false);
    });

    it('on a RateLimiter: the penalty stays around the rescaled quota', async () => {
      const time = { now: Date.now() };
      const clock = () => time.now;
      const store = await make();
      const ops = new LimitOperations({ store, clock });
      const block = { blockMs: 60_000, backoff: 1, maxBlockMs: 60_000 };
      const limiter = new RateLimiter({
        algorithm: penalty(gcra({ rate: 1, period: '1m', burst: 1 }), block),
        store,
        clock,
      });
      await ops.override({ key: 'k' }, '3/1m', { for: '1h' });
      for (let i = 0; i < 3; i++) {
        expect(await limiter.consume('k')).toMatchObject({ allowed: true, limit: 3 });
      }
      expect(await limiter.consume('k')).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
    });
  });

  describe('override of a calendar quota', () => {
    const limits = [Limit.perCalendarMonth(3).named('monthly'), Limit.perMinute(100).named('rate')];

    it('an override naming no limit changes the rate limits and leaves the calendar quota', async () => {
      const { ops, check } = await setup({ limit: limits });
      await ops.override({ user: 'acme' }, '1000/1m', { for: '1h' });
      const v = await check({ userId: 'acme' });
      expect(v.decisions.map((d) => d.limit)).toEqual([3, 1000]);
    });

    it('a named override takes its count, keeping the count so far and the calendar edges', async () => {
      const { ops, check } = await setup({ limit: limits });
      for (let i = 0; i < 3; i++) expect((await check({ userId: 'acme' })).allowed).toBe(true);
      const denied = await check({ userId: 'acme' });
      expect(denied.allowed).toBe(false);
      const edge = denied.decisions[0]!.resetAfterMs;
      await ops.override({ user: 'acme' }, '5/30d', { for: '30d', name: 'monthly' });
      const v = await check({ userId: 'acme' });
      // 3 counted this month: 2 more under 5; the rate limit is left as configured
      expect(v.decisions.map((d) => [d.limit, d.remaining])).toEqual([
        [5, 1],
        [100, 96],
      ]);
      expect(v.decisions[0]!.resetAfterMs).toBe(edge);
      expect((await check({ userId: 'acme' })).allowed).toBe(true);
      expect((await check({ userId: 'acme' })).allowed).toBe(false);
    });
  });

  describe('override of a concurrency or adaptive limit', () => {
    it('naming a Limit.concurrent is refused, naming the kind and why', async () => {
      const { ops, check } = await setup({
        limit: [Limit.concurrent(2).named('export'), Limit.perMinute(10).named('rate')],
      });
      await check();
      const attempt = () => ops.override({ user: 'acme' }, '10/1m', { for: '1h', name: 'export' });
      expect(attempt).toThrow(SluiceConfigError);
      expect(attempt).toThrow(/Limit\.concurrent.*requests in flight.*an override is a rate/);
      expect(await ops.list()).toEqual([]);
      // naming the rate limit, or none, is fine; the concurrency limit stays as configured
      await ops.override({ user: 'acme' }, '20/1m', { for: '1h' });
      const v = await check({ userId: 'acme' });
      expect(v.decisions.map((d) => d.limit)).toEqual([2, 20]);
    });

    it('naming a Limit.adaptive is refused, naming the kind', async () => {
      const { ops, check } = await setup({
        limit: [Limit.adaptive({ max: 10 }).named('gate'), Limit.perMinute(10)],
      });
      await check();
      const attempt = () => ops.override({ ip: '10.0.0.1' }, '10/1m', { for: '1h', name: 'gate' });
      expect(attempt).toThrow(SluiceConfigError);
      expect(attempt).toThrow(/Limit\.adaptive.*following latency/);
    });

    it('a { key } override reaching a concurrency() RateLimiter is refused', async () => {
      const store = await make();
      const ops = new LimitOperations({ store });
      const limiter = new RateLimiter({ algorithm: concurrency({ limit: 2 }), store });
      expect(() => ops.override({ key: 'k' }, '10/1m', { for: '1h' })).toThrow(
        /a RateLimiter key: it is a concurrency\(\) limit/,
      );
      expect((await limiter.consume('k')).limit).toBe(2);
    });
  });
}
