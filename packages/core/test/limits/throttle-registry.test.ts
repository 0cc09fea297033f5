import {
  Limit,
  type RequestView,
  SluiceConfigError,
  ThrottleRegistry,
  throttles,
} from '../../src/index.js';
import { resolveLimitInput } from '../../src/store-api.js';

function request(overrides: Partial<RequestView> = {}): RequestView {
  return {
    method: 'GET',
    route: 'GET /users/:id',
    ip: '203.0.113.7',
    headers: {},
    raw: { framework: 'test' },
    ...overrides,
  };
}

/** A resolver's result that a synchronous resolver gives synchronously. */
function sync<T>(result: T | Promise<T>): T {
  if (result instanceof Promise) throw new Error('expected a synchronous result');
  return result;
}

describe('async resolvers', () => {
  it('an async named limiter resolves to its limits, named after the limiter', async () => {
    const registry = new ThrottleRegistry();
    registry.define('plan', async (req) => Limit.perMinute(req.userId === 'pro' ? 100 : 5));
    const resolved = resolveLimitInput(['throttle:plan', 'throttle:60,1'], registry);
    const limits = resolved.limitsFor(request({ userId: 'pro' }));
    expect(limits).toBeInstanceOf(Promise);
    const [plan, fixed] = await limits;
    expect([plan?.maxAttempts, plan?.name, fixed?.maxAttempts]).toEqual([100, 'plan', 60]);
  });

  it('a synchronous named limiter keeps limitsFor synchronous', () => {
    const registry = new ThrottleRegistry().define('api', () => Limit.perMinute(3));
    expect(resolveLimitInput('throttle:api', registry).limitsFor(request())).toBeInstanceOf(Array);
  });

  it('a function given as the limit is an unnamed resolver, async or not', async () => {
    const sync1 = resolveLimitInput((req) => Limit.perMinute(req.ip === '203.0.113.7' ? 2 : 9));
    expect(sync(sync1.limitsFor(request()))[0]?.maxAttempts).toBe(2);
    expect(sync(sync1.limitsFor(request()))[0]?.name).toBeUndefined();
    const async1 = resolveLimitInput(async () => [Limit.perMinute(4), Limit.perDay(40)]);
    expect((await async1.limitsFor(request())).map((l) => l.maxAttempts)).toEqual([4, 40]);
  });

  it('a rejecting resolver rejects; one resolving to a wrong value names the resolver', async () => {
    const registry = new ThrottleRegistry()
      .define('down', async () => {
        throw new Error('db down');
      })
      .define('empty', (async () => undefined) as never);
    await expect(resolveLimitInput('throttle:down', registry).limitsFor(request())).rejects.toThrow(
      'db down',
    );
    const empty = resolveLimitInput('throttle:empty', registry).limitsFor(request());
    await expect(empty).rejects.toThrow(TypeError);
    await expect(empty).rejects.toThrow(/named limiter "empty".*got undefined/);
    await expect(registry.resolve('empty', request())).rejects.toThrow(/"empty"/);
    const fn = resolveLimitInput((async () => 'x') as never).limitsFor(request());
    await expect(fn).rejects.toThrow(/the limit function must return a Limit/);
  });
});

describe('ThrottleRegistry', () => {
  it('defines, finds and resolves a named limiter with the request view', () => {
    const registry = new ThrottleRegistry();
    const seen: RequestView[] = [];
    registry.define('api', (req) => {
      seen.push(req);
      return Limit.perMinute(60).by(req.userId ?? req.ip);
    });
    expect(registry.has('api')).toBe(true);
    expect(registry.has('login')).toBe(false);
    expect(registry.names).toEqual(['api']);

    const anonymous = request();
    const [byIp] = sync(registry.resolve('api', anonymous));
    expect(seen[0]).toBe(anonymous);
    expect(byIp?.subject).toBe('203.0.113.7');
    expect(byIp?.maxAttempts).toBe(60);
    expect(byIp?.periodMs).toBe(60_000);

    const [byUser] = sync(registry.resolve('api', request({ userId: 42 })));
    expect(byUser?.subject).toBe('42');
  });

  it('resolves several limits from one limiter, in order', () => {
    const registry = new ThrottleRegistry().define('login', (req) => [
      Limit.perMinute(5).by(req.ip),
      Limit.perDay(100).by(req.ip),
    ]);
    const limits = sync(registry.resolve('login', request({ ip: '198.51.100.1' })));
    expect(limits.map((l) => [l.maxAttempts, l.periodMs, l.subject])).toEqual([
      [5, 60_000, '198.51.100.1'],
      [100, 86_400_000, '198.51.100.1'],
    ]);
  });

  it('redefining a name replaces the resolver (Laravel RateLimiter::for)', () => {
    const registry = new ThrottleRegistry();
    registry.define('api', () => Limit.perMinute(1)).define('api', () => Limit.perMinute(2));
    expect(sync(registry.resolve('api', request()))[0]?.maxAttempts).toBe(2);
    expect(registry.names).toEqual(['api']);
  });

  it('get() returns the resolver; unknown names throw SluiceConfigError naming them', () => {
    const registry = new ThrottleRegistry();
    const resolver = () => Limit.perSecond(1);
    registry.define('burst', resolver);
    expect(registry.get('burst')).toBe(resolver);
    expect(() => registry.assertDefined('burst')).not.toThrow();
    for (const call of [
      () => registry.get('nope'),
      () => registry.assertDefined('nope'),
      () => sync(registry.resolve('nope', request())),
    ]) {
      expect(call).toThrow(SluiceConfigError);
      expect(call).toThrow(/"limit".*"nope"/);
    }
  });

  it('a resolver returning junk is a TypeError naming the limiter', () => {
    const registry = new ThrottleRegistry()
      .define('bad', () => 'throttle:60,1' as unknown as Limit)
      .define('mixed', () => [Limit.perMinute(1), {} as Limit]);
    expect(() => sync(registry.resolve('bad', request()))).toThrow(TypeError);
    expect(() => sync(registry.resolve('bad', request()))).toThrow(/"bad"/);
    expect(() => sync(registry.resolve('mixed', request()))).toThrow(TypeError);
  });

  it.each([
    ['', 'name'],
    ['has space', 'name'],
    ['1api', 'name'],
    ['a,b', 'name'],
    ['a"b', 'name'],
    ['api\u00e9', 'name'],
    ['a'.repeat(65), 'name'],
  ])('define(%j) throws SluiceConfigError naming %s', (name, option) => {
    expect(() => new ThrottleRegistry().define(name, () => Limit.none())).toThrow(
      SluiceConfigError,
    );
    expect(() => new ThrottleRegistry().define(name, () => Limit.none())).toThrow(`"${option}"`);
  });

  it('keeps a 64-character name valid in the names derived for several limits', () => {
    const name = 'a'.repeat(64);
    const registry = new ThrottleRegistry().define(name, () => [
      Limit.perMinute(5),
      Limit.perDay(9_007_199),
    ]);
    const limits = sync(resolveLimitInput(`throttle:${name}`, registry).limitsFor(request()));
    expect(limits.map((l) => l.name)).toEqual([
      `${name}.5-per-60000ms`,
      `${name}.9007199-per-86400000ms`,
    ]);
  });

  it('define() rejects a non-function resolver and a non-string name', () => {
    const registry = new ThrottleRegistry();
    expect(() => registry.define('api', Limit.perMinute(1) as never)).toThrow(/"resolver"/);
    expect(() => registry.define(42 as never, () => Limit.none())).toThrow(/"name"/);
    expect(registry.has('api')).toBe(false);
  });

  it('the default registry is a ThrottleRegistry instance', () => {
    expect(throttles).toBeInstanceOf(ThrottleRegistry);
  });
});

describe('resolveLimitInput', () => {
  it('parses a throttle string once into a static limit', () => {
    const resolved = resolveLimitInput('throttle:60,1,uploads', new ThrottleRegistry());
    expect(resolved.isStatic).toBe(true);
    const limits = sync(resolved.limitsFor(request()));
    expect(limits).toHaveLength(1);
    expect(limits[0]?.maxAttempts).toBe(60);
    expect(limits[0]?.periodMs).toBe(60_000);
    expect(limits[0]?.name).toBe('uploads');
    // Static: the same array on every call, no per-request work.
    expect(sync(resolved.limitsFor(request({ ip: '10.0.0.1' })))).toBe(limits);
  });

  it('keeps Limit objects as given and mixes strings and Limits in order', () => {
    const perDay = Limit.perDay(1000).by('tenant-1');
    const resolved = resolveLimitInput(['10/s', perDay], new ThrottleRegistry());
    const limits = sync(resolved.limitsFor(request()));
    expect(limits[0]?.periodMs).toBe(1000);
    expect(limits[0]?.maxAttempts).toBe(10);
    expect(limits[1]).toBe(perDay);
    expect(resolved.entries.map((e) => e.kind)).toEqual(['limit', 'limit']);
  });

  it('checks a named limiter exists at construction and runs it per request', () => {
    const registry = new ThrottleRegistry();
    const resolver = jest.fn((req: RequestView) => [
      Limit.perMinute(5).by(req.ip),
      Limit.perDay(100).by(req.ip).named('login-daily'),
    ]);
    registry.define('login', resolver);
    const resolved = resolveLimitInput(['throttle:login', 'throttle:1000,60'], registry);
    expect(resolved.isStatic).toBe(false);
    expect(resolver).not.toHaveBeenCalled();

    const req = request({ ip: '192.0.2.9' });
    const limits = sync(resolved.limitsFor(req));
    expect(resolver).toHaveBeenCalledTimes(1);
    expect(resolver).toHaveBeenCalledWith(req);
    expect(limits.map((l) => [l.maxAttempts, l.periodMs, l.subject, l.name])).toEqual([
      // A named limiter's subjects carry their position in its result.
      [5, 60_000, '0:192.0.2.9', 'login.5-per-60000ms'],
      [100, 86_400_000, '1:192.0.2.9', 'login-daily'],
      [1000, 3_600_000, undefined, undefined],
    ]);
    expect(sync(resolved.limitsFor(request({ ip: '192.0.2.10' })))[0]?.subject).toBe(
      '0:192.0.2.10',
    );
  });

  it('names limits from a named limiter so none share a prefix (login example)', () => {
    const registry = new ThrottleRegistry()
      .define('api', (req) => Limit.perMinute(60).by(req.userId ?? req.ip))
      .define('login', (req) => [Limit.perMinute(5).by(req.ip), Limit.perDay(100).by(req.ip)]);
    const resolved = resolveLimitInput(['throttle:api', 'throttle:login'], registry);
    const prefixes = sync(resolved.limitsFor(request())).map((l) => l.name);
    expect(prefixes).toEqual(['api', 'login.5-per-60000ms', 'login.100-per-86400000ms']);
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });

  it('keeps the resolver found at construction', () => {
    const registry = new ThrottleRegistry().define('api', () => Limit.perMinute(1));
    const resolved = resolveLimitInput('throttle:api', registry);
    registry.define('api', () => Limit.perMinute(2));
    expect(sync(resolved.limitsFor(request()))[0]?.maxAttempts).toBe(1);
  });

  it('uses the default registry when none is given', () => {
    const name = 'resolve-limit-input-default-test';
    expect(() => resolveLimitInput(`throttle:${name}`)).toThrow(SluiceConfigError);
    throttles.define(name, () => Limit.perHour(7));
    expect(sync(resolveLimitInput(`throttle:${name}`).limitsFor(request()))[0]?.maxAttempts).toBe(
      7,
    );
  });

  it('a named limiter returning junk is a TypeError on the request', () => {
    const registry = new ThrottleRegistry().define('bad', () => null as unknown as Limit);
    const resolved = resolveLimitInput('throttle:bad', registry);
    expect(() => sync(resolved.limitsFor(request()))).toThrow(TypeError);
  });

  it.each([
    ['an unknown named limiter', 'throttle:missing', '"missing"'],
    ['a malformed string', 'throttle:0,1', '"throttle:0,1"'],
    ['a malformed string in an array', [Limit.perMinute(1), '60/fortnight'], '"60/fortnight"'],
    ['an unknown limiter in an array', ['10/s', 'throttle:missing'], '"missing"'],
    ['an empty array', [], 'an array of 0 items'],
    ['a nested array', [['10/s']], 'an array of 1 item'],
    ['a number', 60, '60'],
    ['undefined', undefined, 'undefined'],
    ['a plain object', { maxAttempts: 1 }, 'an object with key maxAttempts'],
  ])('%s throws SluiceConfigError naming "limit" and the value', (_label, input, shown) => {
    const registry = new ThrottleRegistry().define('api', () => Limit.none());
    let error: unknown;
    try {
      resolveLimitInput(input as never, registry);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as Error).message).toContain('"limit"');
    expect((error as Error).message).toContain(shown);
  });

  it('rejects a registry that is not a ThrottleRegistry', () => {
    expect(() => resolveLimitInput('10/s', {} as ThrottleRegistry)).toThrow(/"throttles"/);
  });
});
