// Limit.adaptive in the core's HttpLimiter: per process (not keyed), 503 + Retry-After when
// full, current limit in the headers, beside a keyed rate limit (all or nothing), bad input.
import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict } from '../../src/http/index.js';
import { Limit, MemoryStore, type RequestView, SluiceConfigError } from '../../src/index.js';

function view(ip: string): RequestView {
  return { method: 'GET', route: 'GET /a', ip, headers: {}, raw: {} };
}

const header = (v: HttpVerdict, name: string) => v.headers.find(([n]) => n === name)?.[1];

describe('Limit.adaptive', () => {
  it('is one per-process limit for every client: the third request in flight gets 503, Retry-After 1', () => {
    const limit = Limit.adaptive({ min: 2, max: 2, loopDelay: false });
    const limiter = new HttpLimiter({
      limit,
      store: new MemoryStore(),
      headers: ['legacy', 'draft-8'],
    });
    const a = limiter.check(view('10.0.0.1')) as HttpVerdict;
    const b = limiter.check(view('10.0.0.2')) as HttpVerdict;
    const c = limiter.check(view('10.0.0.3')) as HttpVerdict;
    expect([a.allowed, b.allowed, c.allowed]).toEqual([true, true, false]);
    expect(c.statusCode).toBe(503);
    expect(c.retryAfterSeconds).toBe(1);
    expect(header(c, 'RateLimit-Policy')).toBe('"adaptive";q=2;qu="concurrent-requests"');
    expect(header(a, 'X-RateLimit-Limit')).toBe('2');
    expect(limit.adaptive!.controller.inFlight).toBe(2);
  });

  it('beside a keyed rate limit: a request the rate limit denies takes no adaptive slot (429, not 503)', () => {
    const time = { now: EPOCH };
    const adaptive = Limit.adaptive({ min: 5, max: 5, loopDelay: false });
    const limiter = new HttpLimiter({
      limit: [Limit.perMinute(1), adaptive],
      store: new MemoryStore(),
      clock: () => time.now,
    });
    expect((limiter.check(view('10.0.0.1')) as HttpVerdict).allowed).toBe(true);
    const denied = limiter.check(view('10.0.0.1')) as HttpVerdict;
    expect(denied.allowed).toBe(false);
    expect(denied.statusCode).toBe(429);
    expect(adaptive.adaptive!.controller.inFlight).toBe(1);
  });

  it.each([
    [{ min: 10, max: 5 }, 'min'],
    [{ min: 2, max: 10, initial: 20 }, 'initial'],
    [{ algorithm: 'vegas' }, 'algorithm'],
  ])('Limit.adaptive(%j) is a SluiceConfigError naming %s', (options, option) => {
    expect(() => Limit.adaptive(options as never)).toThrow(SluiceConfigError);
    try {
      Limit.adaptive(options as never);
    } catch (e) {
      expect((e as SluiceConfigError).option).toBe(option);
    }
  });

  it('refuses what makes no sense per process: by(), cost(), blockFor(), costAfter()', () => {
    const limit = Limit.adaptive();
    expect(() => limit.by('x')).toThrow(SluiceConfigError);
    expect(() => limit.cost(2)).toThrow(SluiceConfigError);
    expect(() => limit.blockFor('1m')).toThrow(SluiceConfigError);
    expect(() => limit.costAfter(() => 1)).toThrow(SluiceConfigError);
    expect(String(limit)).toBe('Limit(adaptive(gradient2, 1..1000 in flight))');
  });
});

describe('Limit.adaptive on two limiters of one request', () => {
  it('the same limit is charged once; two adaptive limits are two', () => {
    const shared = Limit.adaptive({ min: 5, max: 5, loopDelay: false });
    const other = Limit.adaptive({ min: 5, max: 5, loopDelay: false });
    const store = new MemoryStore();
    const global = new HttpLimiter({ limit: shared, store });
    const route = new HttpLimiter({ limit: [shared, other], store });
    const v: RequestView = { ...view('10.0.0.1'), ledger: {} };
    expect((global.check(v) as HttpVerdict).allowed).toBe(true);
    expect((route.check(v) as HttpVerdict).allowed).toBe(true);
    expect(shared.adaptive!.controller.inFlight).toBe(1);
    expect(other.adaptive!.controller.inFlight).toBe(1);
  });
});
