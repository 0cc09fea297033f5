// Mistakes that used to pass in silence: each is a SluiceConfigError naming the option when
// the limiter is made, or a stated answer (a request that can never pass: 429 without
// Retry-After), or a bounded wait (resolverTimeout), or fresh keys (an algorithm change).
import { EPOCH } from '@sluice/test-kit';
import { mostRestrictive } from '../../src/engine/restrictive.js';
import { HttpLimiter, type HttpVerdict } from '../../src/http/index.js';
import { ResolverTimeouts } from '../../src/http/limiter/resolver-timeout.js';
import {
  type Decision,
  fixedWindow,
  gcra,
  Limit,
  MemoryStore,
  RateLimiter,
  type RequestView,
  SluiceConfigError,
  slidingLog,
  ThrottleRegistry,
} from '../../src/index.js';

function view(over: Partial<RequestView> = {}): RequestView {
  return { method: 'GET', route: 'GET /a', ip: '10.0.0.1', headers: {}, raw: {}, ...over };
}

function thrown(fn: () => unknown): SluiceConfigError {
  try {
    fn();
  } catch (error) {
    return error as SluiceConfigError;
  }
  throw new Error('did not throw');
}

describe('cost and costAfter', () => {
  it('.cost(n) then .costAfter() is refused (it would drop the cost), saying to give upfront', () => {
    const error = thrown(() =>
      Limit.perMinute(100)
        .cost(10)
        .costAfter(() => 1),
    );
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect(error.option).toBe('costAfter');
    expect(error.message).toContain('.costAfter(units, { upfront: 10 })');
    // .cost(1) given explicitly is a cost too.
    expect(
      thrown(() =>
        Limit.perMinute(100)
          .cost(1)
          .costAfter(() => 1),
      ).option,
    ).toBe('costAfter');
    // Without .cost(), costAfter's upfront is the arrival cost (default 1).
    expect(Limit.perMinute(100).costAfter(() => 1, { upfront: 10 }).requestCost).toBe(10);
  });

  it('.costAfter() then .cost(n) is refused, naming cost and the upfront to write', () => {
    const error = thrown(() =>
      Limit.perMinute(100)
        .costAfter(() => 1)
        .cost(4),
    );
    expect(error.option).toBe('cost');
    expect(error.message).toContain('{ upfront: 4 }');
  });

  it("costAfter's old option name reserve is read as upfront, with one warning per process; upfront wins over it", () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const old = { reserve: 7 } as const;
      expect(Limit.perMinute(100).costAfter(() => 1, old).requestCost).toBe(7);
      expect(Limit.perMinute(100).costAfter(() => 1, { reserve: 0 }).requestCost).toBe(0);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toContain('"upfront"');
      // With both, the new name is taken.
      expect(Limit.perMinute(100).costAfter(() => 1, { reserve: 2, upfront: 3 }).requestCost).toBe(
        3,
      );
      expect(thrown(() => Limit.perMinute(100).costAfter(() => 1, { reserve: -1 })).option).toBe(
        'upfront',
      );
    } finally {
      warn.mockRestore();
    }
  });

  it.each([
    ['sliding-window', 'sliding window'],
    ['sliding-log', 'sliding log'],
  ] as const)(
    'costAfter on %s is refused when the limiter is made, with or without a store, saying why',
    (algorithm, why) => {
      const limit = Limit.perMinute(100).costAfter(() => 1);
      for (const store of [new MemoryStore(), undefined]) {
        const error = thrown(() => new HttpLimiter({ limit, algorithm, store }));
        expect(error.option).toBe('costAfter');
        expect(error.message).toContain(algorithm);
        expect(error.message).toContain(why);
      }
      // fixed-window and GCRA settle it.
      expect(() => new HttpLimiter({ limit, algorithm: 'fixed-window' })).not.toThrow();
      expect(() => new HttpLimiter({ limit })).not.toThrow();
    },
  );

  it('a static cost or upfront charge above the capacity is refused when the limiter is made; the capacity is the algorithm’s', () => {
    expect(thrown(() => new HttpLimiter({ limit: Limit.perMinute(5).cost(6) })).option).toBe(
      'cost',
    );
    const upfront = thrown(
      () => new HttpLimiter({ limit: Limit.perMinute(5).costAfter(() => 1, { upfront: 6 }) }),
    );
    expect(upfront.option).toBe('upfront');
    // In an array beside a named limiter: still checked at construction.
    const throttles = new ThrottleRegistry().define('api', () => Limit.perMinute(60));
    expect(
      thrown(
        () => new HttpLimiter({ limit: ['throttle:api', Limit.perMinute(5).cost(9)], throttles }),
      ).option,
    ).toBe('cost');
    // A burst of 10 admits a cost of 6 on a quota of 5.
    const burst = ({ limit, periodMs }: { limit: number; periodMs: number }) =>
      gcra({ rate: limit, period: periodMs, burst: 10 });
    expect(
      () => new HttpLimiter({ limit: Limit.perMinute(5).cost(6), algorithm: burst }),
    ).not.toThrow();
    // A cost equal to the capacity is fine.
    expect(() => new HttpLimiter({ limit: Limit.perMinute(5).cost(5) })).not.toThrow();
  });
});

describe('a request that can never be admitted', () => {
  const never = (): HttpVerdict => {
    const throttles = new ThrottleRegistry().define('upload', (req) =>
      Limit.perMinute(5).cost(Number(req.headers['x-size'])),
    );
    const limiter = new HttpLimiter({
      limit: 'throttle:upload',
      throttles,
      store: new MemoryStore(),
      clock: () => EPOCH,
      headers: ['legacy', 'draft-8'],
    });
    return limiter.check(view({ headers: { 'x-size': '6' } })) as HttpVerdict;
  };

  it('is a 429 without Retry-After, reporting what is left and a message that retrying will not help', () => {
    const v = never();
    expect(v.allowed).toBe(false);
    expect(v.statusCode).toBe(429);
    expect(v.decision.retryAfterMs).toBe(-1);
    expect(v.retryAfterSeconds).toBe(-1);
    const headers = Object.fromEntries(v.headers);
    expect(headers['Retry-After']).toBeUndefined();
    expect(headers['X-RateLimit-Remaining']).toBe('5');
    expect(headers.RateLimit).toBe('"upload";r=5;t=0');
    expect(JSON.parse(v.body as string).message).toContain('retrying will not help');
  });

  it('is the most restrictive of several denials (a finite wait loses to never)', () => {
    const d = (retryAfterMs: number): Decision => ({
      allowed: false,
      limit: 5,
      remaining: 0,
      retryAfterMs,
      resetAfterMs: 1000,
      cost: 1,
    });
    expect(mostRestrictive([d(60_000), d(-1), d(120_000)])).toBe(1);
    expect(mostRestrictive([d(-1), d(120_000)])).toBe(0);
  });
});

describe('resolverTimeout', () => {
  it.each([[0], [-5], ['soon'], [true], [Number.NaN]])(
    'rejects %p, naming resolverTimeout',
    (value) => {
      expect(thrown(() => new HttpLimiter({ resolverTimeout: value as never })).option).toBe(
        'resolverTimeout',
      );
    },
  );

  it('takes ms, a duration string and false', () => {
    for (const resolverTimeout of [50, '2s', false] as const) {
      expect(() => new HttpLimiter({ resolverTimeout })).not.toThrow();
    }
  });

  it('an async key that never settles fails its request with a TimeoutError naming the option', async () => {
    const limiter = new HttpLimiter({
      store: new MemoryStore(),
      key: () => new Promise<string>(() => undefined),
      resolverTimeout: 20,
      logger: { warn: () => undefined },
    });
    const error = await Promise.resolve(limiter.check(view())).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ResolverTimeoutError', option: 'key' });
    expect((error as Error).message).toContain('within 20 ms');
  });

  it('calls in flight together: each hung one times out, one that settles meanwhile is answered (one timer for all)', async () => {
    const timeouts = new ResolverTimeouts(20, { warn: () => undefined });
    const hang = () => new Promise<number>(() => undefined);
    const outcome = (p: Promise<number>) => p.then(String, (e: Error) => e.name);
    const quick = new Promise<number>((r) => setTimeout(() => r(5), 5));
    const results = await Promise.all([
      outcome(timeouts.bound(hang(), 'key')),
      outcome(timeouts.bound(quick, 'key')),
      outcome(timeouts.bound(hang(), 'key')),
    ]);
    expect(results).toEqual(['ResolverTimeoutError', '5', 'ResolverTimeoutError']);
    // Later calls get a fresh bound of their own.
    expect(await outcome(timeouts.bound(Promise.resolve(8), 'key'))).toBe('8');
    expect(await outcome(timeouts.bound(hang(), 'key'))).toBe('ResolverTimeoutError');
  });

  it('logs once per resolver while it keeps timing out, and again after it settled in time once', async () => {
    const seen: string[] = [];
    const timeouts = new ResolverTimeouts(10, { warn: (m) => void seen.push(m) });
    const hang = () => new Promise<number>(() => undefined);
    const fail = (p: Promise<unknown>) =>
      p.then(
        () => 'settled',
        (e: Error) => e.name,
      );
    expect(await fail(timeouts.bound(hang(), 'limit'))).toBe('ResolverTimeoutError');
    expect(await fail(timeouts.bound(hang(), 'limit'))).toBe('ResolverTimeoutError');
    expect(await fail(timeouts.bound(hang(), 'user'))).toBe('ResolverTimeoutError');
    expect(seen.map((m) => m.split(' ')[2])).toEqual(['limit', 'user']);
    // In time once: the next outage of `limit` is logged again.
    expect(await timeouts.bound(Promise.resolve(7), 'limit')).toBe(7);
    expect(await fail(timeouts.bound(hang(), 'limit'))).toBe('ResolverTimeoutError');
    expect(seen).toHaveLength(3);
    // A rejection passes through as it is, before the bound.
    const boom = new Error('boom');
    await expect(timeouts.bound(Promise.reject(boom), 'skip')).rejects.toBe(boom);
  });
});

describe('an algorithm changed on the same key starts fresh (memory store)', () => {
  it('HttpLimiter: a spent fixed window is not read as GCRA state, nor a spent GCRA as a sliding log', async () => {
    const store = new MemoryStore();
    const clock = () => EPOCH;
    const window = new HttpLimiter({
      limit: 'throttle:10,1',
      algorithm: 'fixed-window',
      store,
      clock,
    });
    for (let i = 0; i < 10; i++) window.check(view());
    expect((window.check(view()) as HttpVerdict).allowed).toBe(false);
    const moved = new HttpLimiter({ limit: 'throttle:10,1', store, clock });
    const allowed = Array.from({ length: 10 }, () => (moved.check(view()) as HttpVerdict).allowed);
    expect(allowed).toEqual(new Array(10).fill(true));
    // And on: GCRA's spent TAT is not read as a sliding log (which denied all 10 before).
    const log = new HttpLimiter({ limit: 'throttle:10,1', algorithm: 'sliding-log', store, clock });
    const logged = Array.from({ length: 10 }, () => (log.check(view()) as HttpVerdict).allowed);
    expect(logged).toEqual(new Array(10).fill(true));
  });

  it('RateLimiter: the same key under another algorithm is another store key; GCRA keys do not move', async () => {
    const store = new MemoryStore();
    const clock = () => EPOCH;
    const w = new RateLimiter({ algorithm: fixedWindow({ limit: 1, window: '1m' }), store, clock });
    const g = new RateLimiter({ algorithm: gcra({ rate: 1, period: '1m' }), store, clock });
    const l = new RateLimiter({ algorithm: slidingLog({ limit: 1, window: '1m' }), store, clock });
    expect((await w.consume('k')).allowed).toBe(true);
    expect((await g.consume('k')).allowed).toBe(true);
    expect((await l.consume('k')).allowed).toBe(true);
    expect(store.inspect('sl:k')).toBe(EPOCH + 60_000); // GCRA: the key it always had
    expect(store.inspect('sl@fw:k')).toBeDefined();
    expect(store.inspect('sl@log:k')).toBeDefined();
  });
});
