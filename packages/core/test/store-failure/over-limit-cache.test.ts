// The over-limit cache ("Keys already over the limit are remembered in-process"):
// what it answers is exactly what the store would answer, checked against MemoryStore with
// an injected clock; and a FailSafeStore with it denies a known key without a store call,
// also during an outage under 'insurance'.
import { EPOCH } from '@sluice/test-kit';
import fc from 'fast-check';
import {
  type Decision,
  fixedWindow,
  gcra,
  leakyBucket,
  MemoryStore,
  RateLimiter,
  SluiceConfigError,
  type Store,
  slidingLog,
  slidingWindow,
} from '../../src/index.js';
import type { Algorithm, FailSafeStore } from '../../src/store-api.js';
import { OverLimitCache } from '../../src/store-failure/over-limit-cache.js';
import { costArb, deltaArb, RUNS } from '../properties/harness.js';

const algorithms: [string, Algorithm, number][] = [
  ['gcra 5/s burst 3', gcra({ rate: 5, period: '1s', burst: 3 }), 200],
  ['gcra 3000/s burst 7 (fractional interval)', gcra({ rate: 3000, period: '1s', burst: 7 }), 1],
  ['leaky bucket 4, 3/s', leakyBucket({ capacity: 4, leakRate: 3 }), 333],
  ['fixed window 4 / 1s', fixedWindow({ limit: 4, window: '1s' }), 1000],
  ['sliding window 6 / 1s', slidingWindow({ limit: 6, window: '1s' }), 1000],
  ['sliding window 7 / 3001 ms', slidingWindow({ limit: 7, window: 3001 }), 3001],
  ['sliding log 5 / 1s', slidingLog({ limit: 5, window: '1s' }), 1000],
];

describe.each(algorithms)('OverLimitCache on %s', (_label, algorithm, scale) => {
  it('answers only what the store answers at that time (fast-check, against MemoryStore)', () => {
    let answered = 0;
    let denied = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            dt: deltaArb(scale),
            cost: costArb(algorithm.limit),
            outage: fc.boolean(),
          }),
          { minLength: 1, maxLength: 80 },
        ),
        (trace) => {
          const store = new MemoryStore();
          const cache = new OverLimitCache(100);
          let now = EPOCH;
          for (const { dt, cost, outage } of trace) {
            now += dt;
            const known = cache.answer('k', algorithm, cost, now, outage);
            const truth = store.consume('k', algorithm, cost, now);
            if (truth.allowed === false) denied++;
            if (known === undefined) {
              cache.record('k', algorithm, truth, now);
              continue;
            }
            answered++;
            // A remembered answer never admits anything, so the store's state is unchanged.
            expect(known.allowed === false || known.cost === 0).toBe(true);
            if (outage && known.retryAfterMs > 0 && known.retryAfterMs !== truth.retryAfterMs) {
              // Only a sliding key's outage answer for a cost it does not know exactly: a
              // denial like the store's, its retry time a lower bound.
              expect(truth.allowed).toBe(false);
              expect(known.cost).toBeGreaterThan(1);
              expect(truth.retryAfterMs).toBeGreaterThan(known.retryAfterMs);
              expect({ ...known, retryAfterMs: 0 }).toEqual({ ...truth, retryAfterMs: 0 });
            } else {
              expect(known).toEqual(truth);
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
    // The traces deny often, and the cache answers many of those requests (random traces:
    // about one denial per run, so the floors leave room for an unlucky seed).
    expect(denied).toBeGreaterThan(RUNS / 2);
    expect(answered).toBeGreaterThan(RUNS / 20);
  });
});

it('a denial is answered until its retry time, times shrinking; then the store decides', () => {
  const algorithm = gcra({ rate: 1, period: '1s', burst: 2 });
  const store = new MemoryStore();
  const cache = new OverLimitCache();
  store.consume('k', algorithm, 2, EPOCH);
  const denial = store.consume('k', algorithm, 1, EPOCH);
  expect(denial).toMatchObject({ allowed: false, retryAfterMs: 1000, resetAfterMs: 2000 });
  cache.record('k', algorithm, denial, EPOCH);
  expect(cache.answer('k', algorithm, 1, EPOCH + 400, false)).toEqual({
    ...denial,
    retryAfterMs: 600,
    resetAfterMs: 1600,
  });
  // Cost 3 > burst: never admitted.
  expect(cache.answer('k', algorithm, 3, EPOCH + 400, false)?.retryAfterMs).toBe(-1);
  expect(cache.answer('k', algorithm, 1, EPOCH + 1000, false)).toBeUndefined();
  expect(cache.size).toBe(0);
});

it('holds at most maxKeys keys, dropping the one remembered longest ago; forget() drops one', () => {
  const algorithm = fixedWindow({ limit: 1, window: '1m' });
  const store = new MemoryStore();
  const cache = new OverLimitCache(2);
  for (const key of ['a', 'b', 'c']) {
    store.consume(key, algorithm, 1, EPOCH);
    cache.record(key, algorithm, store.consume(key, algorithm, 1, EPOCH), EPOCH);
  }
  expect(cache.size).toBe(2);
  expect(cache.answer('a', algorithm, 1, EPOCH, false)).toBeUndefined();
  expect(cache.answer('c', algorithm, 1, EPOCH, false)?.allowed).toBe(false);
  cache.forget('c');
  expect(cache.answer('c', algorithm, 1, EPOCH, false)).toBeUndefined();
});

/** A MemoryStore behind a Store that is not one (so limiters wrap it), counting calls. */
class CountingStore implements Store {
  readonly inner = new MemoryStore();
  calls = 0;
  down = false;
  consume(key: string, algorithm: Algorithm, cost: number, nowMs: number): Promise<Decision> {
    this.calls++;
    if (this.down) return Promise.reject(new Error('connection refused'));
    return Promise.resolve(this.inner.consume(key, algorithm, cost, nowMs));
  }
  reset(key: string): Promise<void> {
    this.inner.reset(key);
    return Promise.resolve();
  }
}

describe('RateLimiter on a store that can fail, with the over-limit cache', () => {
  const algorithm = gcra({ rate: 10, period: '1m', burst: 3 });
  function setup(overLimitCache?: false | { maxKeys?: number }) {
    const store = new CountingStore();
    const time = { now: EPOCH };
    const limiter = new RateLimiter({
      algorithm,
      store,
      clock: () => time.now,
      logger: { warn: () => {} },
      ...(overLimitCache === undefined ? {} : { overLimitCache }),
    });
    const reference = new RateLimiter({ algorithm, clock: () => time.now });
    return { store, time, limiter, reference };
  }

  it('denies a key over its limit without a store call, with the decision the store would give', async () => {
    const { store, time, limiter, reference } = setup();
    for (let i = 0; i < 4; i++) {
      expect(await limiter.consume('u')).toEqual(await reference.consume('u'));
    }
    expect(store.calls).toBe(4); // the 4th was the store's denial
    for (let i = 0; i < 20; i++) {
      time.now += 250;
      expect(await limiter.consume('u')).toEqual(await reference.consume('u'));
      expect(await limiter.peek('u')).toEqual(await reference.peek('u'));
    }
    // 20 x 250 ms = 5 s: the denial's retry time (6 s) is not reached yet.
    expect(store.calls).toBe(4);
    time.now += 1000;
    expect(await limiter.consume('u')).toEqual(await reference.consume('u'));
    expect(store.calls).toBe(5);
    await limiter.reset('u');
    await reference.reset('u');
    expect(await limiter.consume('u')).toEqual(await reference.consume('u'));
    expect(store.calls).toBe(6);
  });

  it("during an outage 'insurance' keeps denying a key the store denied; a fresh key gets the in-memory bucket", async () => {
    const { store, time, limiter } = setup();
    for (let i = 0; i < 4; i++) await limiter.consume('exhausted');
    store.down = true;
    expect((await limiter.consume('fresh')).allowed).toBe(true); // the store fails: insurance
    for (let i = 0; i < 10; i++) {
      time.now += 100;
      const d = await limiter.consume('exhausted');
      expect(d).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 6000 - 100 * (i + 1) });
    }
    expect(store.calls).toBe(5);
  });

  it('overLimitCache: false asks the store every time; maxKeys bounds it', async () => {
    const off = setup(false);
    for (let i = 0; i < 6; i++) await off.limiter.consume('u');
    expect(off.store.calls).toBe(6);
    const small = setup({ maxKeys: 1 });
    for (const key of ['a', 'b']) for (let i = 0; i < 4; i++) await small.limiter.consume(key);
    expect((small.limiter.store as FailSafeStore).overLimitKeys).toBe(1);
    await small.limiter.consume('b'); // remembered
    expect(small.store.calls).toBe(8);
    await small.limiter.consume('a'); // forgotten: asks the store
    expect(small.store.calls).toBe(9);
  });

  it('rejects an invalid overLimitCache at construction', () => {
    const make = (overLimitCache: unknown) => () =>
      new RateLimiter({
        algorithm,
        store: new CountingStore(),
        overLimitCache: overLimitCache as never,
      });
    expect(make({ maxKeys: 0 })).toThrow(SluiceConfigError);
    expect(make({ maxKeys: 0 })).toThrow(/overLimitCache\.maxKeys.*0/);
    expect(make({ maxKeys: 1.5 })).toThrow(/overLimitCache\.maxKeys/);
    expect(make(true)).toThrow(/"overLimitCache".*true/);
    expect(make('big')).toThrow(/overLimitCache/);
    expect(() => new OverLimitCache(0)).toThrow(/overLimitCache\.maxKeys/);
  });
});
