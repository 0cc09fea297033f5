// mode 'queue' beyond one plain limit: a route with several limits books all their slots in
// one all-or-nothing store call, waits for the latest and gives every part back on abort;
// held charges (costAfter, outcome) are held after the wait; what cannot book a future slot
// is a SluiceConfigError at construction, never 'enforce' in silence.

import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict, type RequestView } from '../../src/http/index.js';
import type { Verdict } from '../../src/http/verdict/verdict.js';
import {
  fixedWindow,
  gcra,
  Limit,
  MemoryStore,
  SluiceConfigError,
  type Store,
} from '../../src/index.js';
import type { StoreRequest } from '../../src/store-api.js';

const view = (): RequestView => ({
  method: 'GET',
  route: 'GET /q',
  ip: '10.0.0.1',
  headers: {},
  raw: {},
});

/** A MemoryStore that counts its reserveAll calls. */
class CountingStore extends MemoryStore {
  reserveAllCalls = 0;
  override reserveAll(requests: readonly StoreRequest[], now: number, maxWait: number) {
    this.reserveAllCalls++;
    return super.reserveAll(requests, now, maxWait);
  }
}

const TWO = [Limit.per(1, '100ms').named('fast'), Limit.per(1, '300ms').named('slow')];

describe("mode 'queue' with several limits", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const make = (store: Store, maxWait = '5s') =>
    new HttpLimiter({ limit: TWO, store, clock: () => EPOCH, mode: 'queue', maxWait });

  /** Settles `p`, reporting whether it resolved within `ms` of fake time. */
  async function resolvedWithin<T>(p: Promise<T>, ms: number): Promise<boolean> {
    let done = false;
    void p.then(() => {
      done = true;
    });
    await jest.advanceTimersByTimeAsync(ms);
    return done;
  }

  it('books every limit in one store call and waits for the latest slot', async () => {
    const store = new CountingStore();
    const limiter = make(store);
    expect(((await limiter.check(view())) as HttpVerdict).allowed).toBe(true);
    const second = limiter.check(view()) as Promise<HttpVerdict>;
    expect(store.reserveAllCalls).toBe(2);
    // fast's slot is at +100 ms, slow's at +300 ms: served at +300
    expect(await resolvedWithin(second, 299)).toBe(false);
    expect(await resolvedWithin(second, 1)).toBe(true);
    const v = await second;
    expect(v.allowed).toBe(true);
    expect(v.decisions.map((d) => d.resetAfterMs)).toEqual([200, 600]);
  });

  it('all or nothing: a wait past maxWait on one limit books none (429 with the longest wait)', async () => {
    const store = new MemoryStore();
    const limiter = make(store, '200ms');
    expect(((await limiter.check(view())) as HttpVerdict).allowed).toBe(true);
    const refused = (await limiter.check(view())) as HttpVerdict;
    expect(refused.allowed).toBe(false);
    expect(refused.decision.retryAfterMs).toBe(300);
    // fast's slot at +100 ms fitted maxWait but was not booked: a fast-only limiter on the
    // same keys finds its TAT where the first request left it (+100 ms)
    const fastOnly = new HttpLimiter({
      limit: TWO[0]!,
      store,
      clock: () => EPOCH,
      mode: 'queue',
    });
    const booked = fastOnly.check(view()) as Promise<HttpVerdict>;
    await jest.advanceTimersByTimeAsync(100);
    expect((await booked).decision.resetAfterMs).toBe(200);
  });

  it('a client gone while waiting gives back every part exactly; the next request takes the slots', async () => {
    const store = new MemoryStore();
    const limiter = make(store);
    expect(((await limiter.check(view())) as HttpVerdict).allowed).toBe(true);
    const gone = new AbortController();
    const waiting = limiter.check(view(), undefined, gone.signal) as Promise<HttpVerdict>;
    await jest.advanceTimersByTimeAsync(50);
    gone.abort();
    const left = await waiting;
    expect(left.allowed).toBe(false);
    await jest.advanceTimersByTimeAsync(0); // the give-back runs
    const next = limiter.check(view()) as Promise<HttpVerdict>;
    // booked at the freed slots (+100 ms, +300 ms from the first), not behind the gone one
    await jest.advanceTimersByTimeAsync(300);
    const v = await next;
    expect(v.allowed).toBe(true);
    expect(v.decisions.map((d) => d.resetAfterMs)).toEqual([200, 600]);
  });

  it("a store whose reserveAll fails: onStoreError 'insurance' books in process, all or nothing too", async () => {
    const inner = new MemoryStore();
    const failing: Store = {
      consume: (k, a, c, n) => inner.consume(k, a, c, n),
      reset: (k) => inner.reset(k),
      reserve: (k, a, c, n, w) => inner.reserve(k, a, c, n, w),
      refund: (k, a, c, n, at) => inner.refund(k, a, c, n, at),
      reserveAll: () => Promise.reject(new Error('connection refused')),
    };
    const warnings: string[] = [];
    const limiter = new HttpLimiter({
      limit: TWO,
      store: failing,
      clock: () => EPOCH,
      mode: 'queue',
      logger: { warn: (m: string) => void warnings.push(m) },
    });
    expect(((await limiter.check(view())) as HttpVerdict).allowed).toBe(true);
    const second = limiter.check(view()) as Promise<HttpVerdict>;
    await jest.advanceTimersByTimeAsync(300);
    const v = await second;
    expect(v.allowed).toBe(true);
    expect(v.decisions.map((d) => d.resetAfterMs)).toEqual([200, 600]);
    expect(warnings.length).toBeGreaterThan(0);
  });

  it('held charges: costAfter and skipFailedRequests charges are held after the wait', async () => {
    const costAfter = new HttpLimiter({
      limit: [Limit.per(2, '200ms').costAfter(() => 1), TWO[1]!],
      store: new MemoryStore(),
      clock: () => EPOCH,
      mode: 'queue',
    });
    await costAfter.check(view());
    const queued = costAfter.check(view()) as Promise<HttpVerdict>;
    await jest.advanceTimersByTimeAsync(300);
    const v = await queued;
    expect(v.allowed).toBe(true);
    expect((v as Verdict).held?.length).toBe(2);
    const outcome = new HttpLimiter({
      limit: TWO[0]!,
      store: new MemoryStore(),
      clock: () => EPOCH,
      mode: 'queue',
      skipFailedRequests: true,
    });
    await outcome.check(view());
    const one = outcome.check(view()) as Promise<HttpVerdict>;
    await jest.advanceTimersByTimeAsync(100);
    expect(((await one) as Verdict).held?.length).toBe(1);
  });
});

describe("mode 'queue': what cannot book a future slot is a SluiceConfigError", () => {
  const queue = (options: Record<string, unknown>) => () =>
    new HttpLimiter({ store: new MemoryStore(), mode: 'queue', ...options });

  it('a window through the algorithm factory or a calendar Limit', () => {
    const windowFactory = ({ limit, periodMs }: { limit: number; periodMs: number }) =>
      fixedWindow({ limit, window: periodMs });
    expect(queue({ limit: Limit.perMinute(5), algorithm: windowFactory })).toThrow(
      /"mode".*no future slot/,
    );
    expect(queue({ limit: Limit.perCalendarDay(100) })).toThrow(SluiceConfigError);
    expect(
      queue({ limit: Limit.perMinute(5), algorithm: () => gcra({ rate: 5, period: '1m' }) }),
    ).not.toThrow();
  });

  it('a concurrency or adaptive limit: a lease frees when a request ends', () => {
    expect(queue({ limit: Limit.concurrent(2) })).toThrow(/lease frees when a request ends/);
    expect(queue({ limit: [Limit.perMinute(5), Limit.adaptive()] })).toThrow(/limiter of its own/);
  });

  it('a per-request limit is checked when first prepared, before anything is charged', () => {
    const limiter = new HttpLimiter({
      store: new MemoryStore(),
      mode: 'queue',
      limit: () => [Limit.perMinute(5), Limit.concurrent(1)],
    });
    expect(() => limiter.check(view())).toThrow(SluiceConfigError);
  });

  it('a store that cannot book (no reserve; several limits: no reserveAll)', () => {
    const inner = new MemoryStore();
    const plain: Store = {
      consume: (k, a, c, n) => inner.consume(k, a, c, n),
      reset: (k) => inner.reset(k),
    };
    expect(queue({ limit: Limit.perMinute(5), store: plain })).toThrow(/reserve and refund/);
    const single: Store = {
      ...plain,
      reserve: (k, a, c, n, w) => inner.reserve(k, a, c, n, w),
      refund: (k, a, c, n, at) => inner.refund(k, a, c, n, at),
    };
    expect(queue({ limit: Limit.perMinute(5), store: single })).not.toThrow();
    expect(queue({ limit: TWO, store: single })).toThrow(/reserveAll/);
  });
});
