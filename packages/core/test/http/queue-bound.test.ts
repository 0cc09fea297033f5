// `maxQueued` bounds concurrent arrivals on an asynchronous store: a queued request counts
// against it from before its store call, not from the store's reply, so 200 requests that
// arrive before the first reply cannot all be booked (they were, on Redis: every later
// client got 429 until the 200 drained). A denial or a zero wait gives its place back.

import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict, type RequestView } from '../../src/http/index.js';
import { Limit, MemoryStore, type Store } from '../../src/index.js';
import type { StoreRequest, StoreReservation } from '../../src/store-api.js';

const view = (): RequestView => ({
  method: 'GET',
  route: 'GET /q',
  ip: '10.0.0.1',
  headers: {},
  raw: {},
});

/** A Redis-like store: every call answers in a later microtask, decided by a MemoryStore. */
class AsyncStore implements Store {
  readonly inner = new MemoryStore();
  /** The waits of the bookings the store granted (`delayMs > 0`). */
  readonly delays: number[] = [];
  consume(...args: Parameters<Store['consume']>) {
    return Promise.resolve().then(() => this.inner.consume(...args));
  }
  reset(key: string) {
    this.inner.reset(key);
  }
  reserve(...args: Parameters<MemoryStore['reserve']>): Promise<StoreReservation> {
    return Promise.resolve().then(() => this.#seen(this.inner.reserve(...args)));
  }
  reserveAll(requests: readonly StoreRequest[], now: number, maxWait: number) {
    return Promise.resolve().then(() => {
      const parts = this.inner.reserveAll(requests, now, maxWait);
      if (parts.every((p) => p.decision.allowed)) this.#seen(parts[parts.length - 1]!);
      return parts;
    });
  }
  refund(...args: Parameters<MemoryStore['refund']>) {
    return Promise.resolve().then(() => this.inner.refund(...args));
  }
  #seen(r: StoreReservation): StoreReservation {
    if (r.decision.allowed && r.delayMs > 0) this.delays.push(r.delayMs);
    return r;
  }
}

const MAX_QUEUED = 20;
const ARRIVALS = 200;

describe('maxQueued on an asynchronous store: concurrent arrivals', () => {
  beforeEach(() => jest.useFakeTimers({ now: EPOCH }));
  afterEach(() => jest.useRealTimers());

  it.each([
    ['one limit', [Limit.per(1, '100ms').named('q')]],
    ['two limits', [Limit.per(1, '100ms').named('a'), Limit.per(1, '50ms').named('b')]],
  ])(
    '%s: 200 at once with maxQueued 20 book at most 20 places; the rest get 429 at once',
    async (_, limit) => {
      const store = new AsyncStore();
      const limiter = new HttpLimiter({
        limit,
        store,
        clock: () => Date.now(),
        mode: 'queue',
        maxWait: '1m',
        maxQueued: MAX_QUEUED,
      });
      const settled: HttpVerdict[] = [];
      const all = Array.from({ length: ARRIVALS }, () =>
        Promise.resolve(limiter.check(view()) as Promise<HttpVerdict>).then((v) => {
          settled.push(v);
          return v;
        }),
      );
      await jest.advanceTimersByTimeAsync(0); // every store reply is in; no slot has come
      // the first conforms now (its place given back), 19 wait; 180 found the queue full
      expect(store.delays.length).toBe(MAX_QUEUED - 1);
      expect(settled.length).toBe(ARRIVALS - (MAX_QUEUED - 1));
      expect(settled.filter((v) => v.allowed).length).toBe(1);
      expect(settled.filter((v) => !v.allowed).length).toBe(ARRIVALS - MAX_QUEUED);
      await jest.advanceTimersByTimeAsync(100 * MAX_QUEUED);
      const verdicts = await Promise.all(all);
      expect(verdicts.filter((v) => v.allowed).length).toBe(MAX_QUEUED);
      // the places are free again and no slot is booked past the 20 served
      expect(((await limiter.check(view())) as HttpVerdict).decision.retryAfterMs).toBe(0);
    },
  );
});
