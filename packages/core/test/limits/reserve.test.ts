import { EPOCH } from '@sluice/test-kit';
import {
  fixedWindow,
  gcra,
  leakyBucket,
  MemoryStore,
  RateLimiter,
  SluiceConfigError,
  slidingWindow,
  tokenBucket,
} from '../../src/index.js';
import { FailSafeStore, type Store } from '../../src/store-api.js';

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

/** A MemoryStore counting its calls by method. */
function countingStore() {
  const inner = new MemoryStore();
  const calls = { consume: 0, reserve: 0, refund: 0 };
  const store: Store = {
    consume: (k, a, c, n) => {
      calls.consume++;
      return inner.consume(k, a, c, n);
    },
    reset: (k) => inner.reset(k),
    refund: (k, a, c, n, at) => {
      calls.refund++;
      return inner.refund(k, a, c, n, at);
    },
    reserve: (k, a, c, n, w) => {
      calls.reserve++;
      return inner.reserve(k, a, c, n, w);
    },
  };
  return { store, calls };
}

describe('GcraAlgorithm.reserve (the pure step)', () => {
  const algorithm = gcra({ rate: 10, period: '1s', burst: 1 });

  it('books successive slots one emission interval apart: TAT′ = max(TAT, now) + T, delay TAT′ − τ − now', () => {
    let state: number | undefined;
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = algorithm.reserve(state, EPOCH, 1, 1000);
      expect(r.decision.allowed).toBe(true);
      delays.push(r.delayMs);
      state = r.state as number;
      expect(state).toBe(EPOCH + (i + 1) * 100);
      expect(r.ttlMs).toBe((i + 1) * 100);
    }
    expect(delays).toEqual([0, 100, 200, 300, 400]);
  });

  it('books nothing past maxWait and answers the denial with the wait as retryAfterMs', () => {
    // TAT 500 ms ahead: TAT′ = 600, the slot at TAT′ − τ = 500 ms from now
    const r = algorithm.reserve(EPOCH + 500, EPOCH, 1, 499);
    expect(r.state).toBeUndefined();
    expect(r.delayMs).toBe(0);
    expect(r.decision).toMatchObject({ allowed: false, retryAfterMs: 500 });
    // exactly at maxWait: booked
    expect(algorithm.reserve(EPOCH + 500, EPOCH, 1, 500)).toMatchObject({
      delayMs: 500,
      state: EPOCH + 600,
    });
  });

  it('with maxWait 0 is step exactly (states, decisions), over random states and costs', () => {
    const a = gcra({ rate: 3000, period: '1s', burst: 7 });
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let i = 0; i < 500; i++) {
      const state = rnd() < 0.2 ? undefined : EPOCH + rnd() * 4;
      const cost = Math.floor(rnd() * 9);
      const step = a.step(state, EPOCH, cost);
      const reserve = a.reserve(state, EPOCH, cost, 0);
      expect({ state: reserve.state, decision: reserve.decision }).toEqual({
        state: step.state,
        decision: step.decision,
      });
      expect(reserve.delayMs).toBe(0);
    }
  });

  it('never books a cost above the burst (retryAfterMs -1, as step)', () => {
    const r = gcra({ rate: 2, period: '1s' }).reserve(undefined, EPOCH, 3, 60_000);
    expect(r.state).toBeUndefined();
    expect(r.decision).toMatchObject({ allowed: false, retryAfterMs: -1 });
  });

  it('refund of the same cost gives a booked slot back exactly', () => {
    const booked = algorithm.reserve(EPOCH + 300, EPOCH, 1, 1000);
    const back = algorithm.refund(booked.state as number, EPOCH + 50, 1, EPOCH);
    expect(back.state).toBe(EPOCH + 300);
  });
});

describe('RateLimiter.reserve', () => {
  it('one store call per reservation; slots in arrival order, one interval apart', async () => {
    const { clock } = fakeTime();
    const { store, calls } = countingStore();
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 10, period: '1s', burst: 1 }),
      store,
      clock,
    });
    const rs = await Promise.all(
      Array.from({ length: 10 }, () => limiter.reserve('k', { maxWait: '15s' })),
    );
    expect(rs.map((r) => r.delayMs)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    expect(rs.every((r) => r.allowed)).toBe(true);
    expect(calls).toEqual({ consume: 0, reserve: 10, refund: 0 });
  });

  it('past maxWait: nothing booked, the denial carries the wait', async () => {
    const { clock } = fakeTime();
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 10, period: '1s', burst: 1 }),
      clock,
    });
    await limiter.reserve('k', { maxWait: 1000 });
    await limiter.reserve('k', { maxWait: 1000 });
    const refused = await limiter.reserve('k', { maxWait: 150 });
    expect(refused.allowed).toBe(false);
    expect(refused.decision.retryAfterMs).toBe(200);
    expect(await refused.cancel()).toBeUndefined();
    // nothing was booked: the next one gets the 200 ms slot
    expect((await limiter.reserve('k', { maxWait: 1000 })).delayMs).toBe(200);
  });

  it('cancel gives the slot back exactly, once: the next request takes it', async () => {
    const { clock } = fakeTime();
    const { store, calls } = countingStore();
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 10, period: '1s', burst: 1 }),
      store,
      clock,
    });
    await limiter.reserve('k', { maxWait: '5s' });
    const b = await limiter.reserve('k', { maxWait: '5s' });
    expect(b.delayMs).toBe(100);
    expect(await b.cancel()).toMatchObject({ cost: 0 });
    expect(await b.cancel()).toBeUndefined();
    expect(calls.refund).toBe(1);
    expect((await limiter.reserve('k', { maxWait: '5s' })).delayMs).toBe(100);
  });

  it('an aborted signal cancels before the slot, not after it', async () => {
    const { time, clock } = fakeTime();
    const { store, calls } = countingStore();
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 10, period: '1s', burst: 1 }),
      store,
      clock,
    });
    await limiter.reserve('k', { maxWait: '5s' });
    const early = new AbortController();
    await limiter.reserve('k', { maxWait: '5s', signal: early.signal });
    early.abort();
    early.abort();
    await Promise.resolve();
    expect(calls.refund).toBe(1);
    const late = new AbortController();
    const c = await limiter.reserve('k', { maxWait: '5s', signal: late.signal });
    expect(c.delayMs).toBe(100);
    time.now += 100; // the slot came: an abort now gives nothing back
    late.abort();
    await Promise.resolve();
    expect(calls.refund).toBe(1);
  });

  it('rejects with the reason of a signal aborted before the call, booking nothing', async () => {
    const { store, calls } = countingStore();
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 1, period: '1s' }), store });
    const reason = new Error('gone');
    await expect(
      limiter.reserve('k', { maxWait: '1s', signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    expect(calls.reserve).toBe(0);
  });

  it('works on the buckets (GCRA values)', async () => {
    const { clock } = fakeTime();
    for (const algorithm of [
      leakyBucket({ capacity: 1, leakRate: 10 }),
      tokenBucket({ capacity: 1, refillRate: 10 }),
    ]) {
      const limiter = new RateLimiter({ algorithm, clock });
      await limiter.reserve('k', { maxWait: '1s' });
      expect((await limiter.reserve('k', { maxWait: '1s' })).delayMs).toBe(100);
    }
  });

  it('a window algorithm is a SluiceConfigError saying a window has no future slot', () => {
    for (const algorithm of [
      fixedWindow({ limit: 5, window: '1s' }),
      slidingWindow({ limit: 5, window: '1s' }),
    ]) {
      const limiter = new RateLimiter({ algorithm });
      expect(() => limiter.reserve('k', { maxWait: '1s' })).toThrow(SluiceConfigError);
      expect(() => limiter.reserve('k', { maxWait: '1s' })).toThrow(/window has no future slot/);
    }
  });

  it('a bad maxWait or cost is a TypeError at the call', () => {
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 1, period: '1s' }) });
    for (const maxWait of [-1, Number.NaN, 'soon', undefined, null]) {
      expect(() => limiter.reserve('k', { maxWait } as never)).toThrow(TypeError);
    }
    expect(() => limiter.reserve('k', { maxWait: 1, cost: 1.5 })).toThrow(TypeError);
  });
});

describe('RateLimiter.acquire as a reservation plus the wait', () => {
  it('one store call and one sleep for a queued acquire; an abort gives the slot back and rejects', async () => {
    const { time, clock } = fakeTime();
    const { store, calls } = countingStore();
    const controller = new AbortController();
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 10, period: '1s', burst: 1 }),
      store,
      clock,
      // the wait is aborted midway
      sleep: (ms, signal) =>
        new Promise<void>((resolve) => {
          time.sleeps.push(ms);
          controller.abort(new Error('client left'));
          if (signal?.aborted) resolve();
        }),
    });
    await limiter.consume('k');
    await expect(limiter.acquire('k', { signal: controller.signal })).rejects.toThrow(
      'client left',
    );
    expect(time.sleeps).toEqual([100]);
    expect(calls).toEqual({ consume: 1, reserve: 1, refund: 1 });
    // the slot is free again
    expect((await limiter.reserve('k', { maxWait: '1s' })).delayMs).toBe(100);
  });
});

describe('FailSafeStore.reserve (a failing store books nothing; the failure mode decides)', () => {
  const failing: Store = {
    consume: () => Promise.reject(new Error('down')),
    reset: () => undefined,
    refund: () => Promise.reject(new Error('down')),
    reserve: () => Promise.reject(new Error('down')),
  };
  const algorithm = gcra({ rate: 10, period: '1s', burst: 1 });
  const quiet = { warn: () => undefined, error: () => undefined };

  it("'insurance' books on the in-process store", async () => {
    const store = new FailSafeStore({ store: failing, onStoreError: 'insurance', logger: quiet });
    expect((await store.reserve('k', algorithm, 1, EPOCH, 1000)).delayMs).toBe(0);
    expect((await store.reserve('k', algorithm, 1, EPOCH, 1000)).delayMs).toBe(100);
  });

  it("'deny' denies and 'allow' admits at once", async () => {
    const deny = new FailSafeStore({ store: failing, onStoreError: 'deny', logger: quiet });
    expect((await deny.reserve('k', algorithm, 1, EPOCH, 1000)).decision.allowed).toBe(false);
    const allow = new FailSafeStore({ store: failing, onStoreError: 'allow', logger: quiet });
    expect(await allow.reserve('k', algorithm, 1, EPOCH, 1000)).toMatchObject({
      delayMs: 0,
      decision: { allowed: true },
    });
  });
});
