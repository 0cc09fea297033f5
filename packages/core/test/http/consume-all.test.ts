// Several limits on one request are all-or-nothing under concurrency, under faults too: on the memory store through HttpLimiter; through FailSafeStore, which passes
// Store.consumeAll through under its policy and breakers; and the fallback for a store
// without consumeAll (peek then consume each).

import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict, type RequestView } from '../../src/http/index.js';
import { type Decision, fixedWindow, gcra, MemoryStore, type Store } from '../../src/index.js';
import { type AlgorithmKind, FailSafeStore, type StoreRequest } from '../../src/store-api.js';

const KINDS: AlgorithmKind[] = ['gcra', 'fixed-window', 'sliding-window', 'sliding-log'];

function view(): RequestView {
  return { method: 'POST', route: 'POST /login', ip: '10.0.0.1', headers: {}, raw: {} };
}

/** A Redis-like store: every call answers later (a macrotask), decided by a MemoryStore. */
class AsyncStore implements Store {
  readonly inner = new MemoryStore();
  consumeAllCalls = 0;
  fail = false;
  consume(key: string, algorithm: Parameters<Store['consume']>[1], cost: number, now: number) {
    return later(() => this.inner.consume(key, algorithm, cost, now));
  }
  reset(key: string) {
    this.inner.reset(key);
  }
  consumeAll(requests: readonly StoreRequest[], now: number): Promise<Decision[]> {
    this.consumeAllCalls++;
    if (this.fail) return Promise.reject(new Error('connection refused'));
    return later(() => this.inner.consumeAll(requests, now));
  }
}

function later<T>(f: () => T): Promise<T> {
  return new Promise((resolve) => setImmediate(() => resolve(f())));
}

async function fifty(store: Store, algorithm: AlgorithmKind, limit: string[]) {
  const options = { store, algorithm, prefix: 'login', clock: () => EPOCH };
  const limiter = new HttpLimiter({ ...options, limit });
  const verdicts = await Promise.all(
    Array.from({ length: 50 }, () => limiter.check(view()) as HttpVerdict | Promise<HttpVerdict>),
  );
  const day = new HttpLimiter({ ...options, limit: 'throttle:100,1440' });
  const next = (await day.check(view())) as HttpVerdict;
  return { admitted: verdicts.filter((v) => v.allowed).length, next: next.decision };
}

const CASES = KINDS.flatMap((kind) =>
  [
    ['throttle:5,1', 'throttle:100,1440'],
    ['throttle:100,1440', 'throttle:5,1'],
  ].map((limits) => [kind, limits] as const),
);

describe('50 concurrent requests on [5/min, 100/day] admit 5 and charge the day limit 5', () => {
  it.each(CASES)('MemoryStore, %s, %j', async (kind, limits) => {
    const { admitted, next } = await fifty(new MemoryStore(), kind, [...limits]);
    expect(admitted).toBe(5);
    expect(next.remaining).toBe(94);
  });

  it.each(CASES)(
    'an asynchronous store with consumeAll (behind FailSafeStore), %s, %j',
    async (kind, limits) => {
      const store = new AsyncStore();
      const { admitted, next } = await fifty(store, kind, [...limits]);
      expect(admitted).toBe(5);
      expect(next.remaining).toBe(94);
      expect(store.consumeAllCalls).toBe(50);
    },
  );
});

describe('FailSafeStore.consumeAll', () => {
  const minute = fixedWindow({ limit: 5, window: '1m' });
  const day = gcra({ rate: 100, period: '1d' });
  const requests: StoreRequest[] = [
    { key: 'm', prefix: 'p:', algorithm: minute, cost: 1 },
    { key: 'd', prefix: 'p:', algorithm: day, cost: 1 },
  ];

  it('a failing call is decided by the policy for every key alike, then the breaker stops calls', async () => {
    const inner = new AsyncStore();
    inner.fail = true;
    const warnings: string[] = [];
    const time = { ms: 0 };
    const store = new FailSafeStore({
      store: inner,
      onStoreError: 'deny',
      logger: { warn: (m) => warnings.push(m) },
      breaker: {
        clock: () => time.ms,
      },
    });
    const first = await store.consumeAll(requests, EPOCH);
    expect(first.map((d) => d.allowed)).toEqual([false, false]);
    expect(warnings).toHaveLength(1);
    await store.consumeAll(requests, EPOCH);
    expect(inner.consumeAllCalls).toBe(1); // open: decided without the store
    time.ms += 1000;
    inner.fail = false;
    const probe = await store.consumeAll(requests, EPOCH);
    expect(probe.map((d) => d.allowed)).toEqual([true, true]);
    expect(store.failing).toBe(false);
    expect(warnings).toHaveLength(2);
  });

  it("'insurance' decides all-or-nothing on its in-process store, by the full keys", async () => {
    const inner = new AsyncStore();
    inner.fail = true;
    const store = new FailSafeStore({
      store: inner,
      onStoreError: 'insurance',
      logger: { warn: () => undefined },
    });
    const small: StoreRequest[] = [
      { key: 'a', algorithm: fixedWindow({ limit: 1, window: '1m' }), cost: 1 },
      { key: 'b', algorithm: fixedWindow({ limit: 3, window: '1m' }), cost: 1 },
    ];
    expect((await store.consumeAll(small, EPOCH)).map((d) => d.allowed)).toEqual([true, true]);
    const second = await store.consumeAll(small, EPOCH);
    expect(second.map((d) => d.allowed)).toEqual([false, true]);
    // b was not charged by the denied request.
    expect((await store.consume('b', small[1]!.algorithm, 0, EPOCH)).remaining).toBe(2);
  });

  it('over a store without consumeAll: peek then consume each key, through its breaker', async () => {
    const inner: Store = {
      consume: (key, algorithm, cost, now) => memory.consume(key, algorithm, cost, now),
      reset: () => undefined,
    };
    const memory = new MemoryStore();
    const store = new FailSafeStore({
      store: inner,
      onStoreError: 'deny',
      logger: { warn: () => undefined },
    });
    const tight: StoreRequest[] = [
      { key: 'x', prefix: 'p:', algorithm: fixedWindow({ limit: 1, window: '1m' }), cost: 1 },
      { key: 'y', prefix: 'p:', algorithm: fixedWindow({ limit: 5, window: '1m' }), cost: 1 },
    ];
    await store.consumeAll(tight, EPOCH);
    const denied = await store.consumeAll(tight, EPOCH);
    expect(denied.map((d) => d.allowed)).toEqual([false, true]);
    expect(denied[1]).toMatchObject({ remaining: 4, cost: 1 });
    expect(memory.inspect('p:y')).toEqual([EPOCH + 60_000, 1]);
  });
});

it('MemoryStore.consumeAll: a request with a prefix is decided in that key space, as scope(prefix)', () => {
  const store = new MemoryStore();
  const algorithm = fixedWindow({ limit: 2, window: '1m' });
  store.scope('p:').consume('k', algorithm, 1, EPOCH);
  const [d] = store.consumeAll([{ key: 'k', prefix: 'p:', algorithm, cost: 1 }], EPOCH);
  expect(d!.remaining).toBe(0);
  const [flat] = store.consumeAll([{ key: 'p:k', algorithm, cost: 1 }], EPOCH);
  expect(flat!.remaining).toBe(1);
});
