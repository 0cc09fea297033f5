import { createHash } from 'node:crypto';
import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict } from '../../src/http/index.js';
import { ProxyWarnings } from '../../src/http/request/proxy-warnings.js';
import {
  Limit,
  MemoryStore,
  type RequestView,
  SluiceConfigError,
  ThrottleRegistry,
} from '../../src/index.js';

function view(over: Partial<RequestView> = {}): RequestView {
  return { method: 'GET', route: 'GET /a', ip: '10.0.0.1', headers: {}, raw: {}, ...over };
}

function setup(options: ConstructorParameters<typeof HttpLimiter>[0] = {}) {
  const time = { now: EPOCH };
  const store = new MemoryStore();
  const limiter = new HttpLimiter({ store, clock: () => time.now, ...options });
  const check = (v: RequestView = view()) => limiter.check(v) as HttpVerdict;
  return { time, store, limiter, check };
}

const header = (v: HttpVerdict, name: string) => v.headers.find(([n]) => n === name)?.[1];

describe('HttpLimiter: the user option', () => {
  const noDefault = () => undefined;
  const userOf = (result: unknown) =>
    new HttpLimiter<object>({ user: () => result }).userOf({}, noDefault);

  it.each([
    [{ id: 7, password: 'hunter2' }, 'an object with keys id, password'],
    [['a'], 'an array of 1 item'],
    [true, 'true'],
    [() => 'id', 'a function'],
  ])('a resolver returning %p is a SluiceConfigError naming "user" (got %s)', (result, kind) => {
    let error: unknown;
    try {
      userOf(result);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as SluiceConfigError).option).toBe('user');
    expect((error as Error).message).toContain(`got ${kind}`);
    expect((error as Error).message).toContain('req.user?.id');
    expect((error as Error).message).not.toContain('hunter2');
  });

  it.each([
    [undefined, undefined],
    [null, undefined],
    ['', undefined],
    ['ann', 'ann'],
    [7, 7],
  ])('a resolver returning %p gives the user id %p', (result, id) => {
    expect(userOf(result)).toBe(id);
  });

  it("the framework's default user id stays lenient: an object there is no user", () => {
    const limiter = new HttpLimiter<object>({});
    expect(limiter.userOf({}, () => ({ id: 1 }))).toBeUndefined();
  });
});

describe('HttpLimiter: the validate option', () => {
  it.each([
    ['yes', 'validate'],
    [{ trustProxy: 'no' }, 'validate.trustProxy'],
    [{ trustproxy: false }, 'trustproxy'],
  ])('validate: %p is a SluiceConfigError naming %s', (validate, option) => {
    let error: unknown;
    try {
      new HttpLimiter({ validate: validate as never });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as SluiceConfigError).option).toBe(option);
  });

  it.each([true, false, {}, { trustProxy: false }, { xForwardedFor: false }])(
    'validate: %p is accepted',
    (validate) => {
      expect(() => new HttpLimiter({ validate })).not.toThrow();
    },
  );
});

describe('ProxyWarnings: in the words of the framework', () => {
  const setting = { name: 'the test setting', fix: 'trust(1)' };
  const run = (trust: 'none' | 'all', headers: Record<string, string>, words = setting) => {
    const seen: string[] = [];
    const config = {
      trustProxy: true,
      xForwardedFor: true,
      logger: { warn: (m: string) => void seen.push(m) },
    };
    const warnings = new ProxyWarnings(config, words);
    const app = {};
    for (let i = 0; i < 3; i++) warnings.check(trust, () => headers, app);
    return seen;
  };

  it("names the binding's setting and its fix, once per application", () => {
    const xff = run('none', { 'x-forwarded-for': '203.0.113.1' });
    expect(xff).toHaveLength(1);
    expect(xff[0]).toContain('but the test setting trusts no proxy');
    expect(xff[0]).toContain('Trust your proxies (trust(1))');
    const all = run('all', {});
    expect(all).toHaveLength(1);
    expect(all[0]).toMatch(/^sluice: the test setting trusts every proxy hop.*\(trust\(1\)\)/);
  });

  it('without words from the binding, generic ones', () => {
    const seen: string[] = [];
    const config = {
      trustProxy: true,
      xForwardedFor: true,
      logger: { warn: (m: string) => void seen.push(m) },
    };
    new ProxyWarnings(config).check('all', () => ({}), {});
    expect(seen[0]).toContain("the framework's proxy setting trusts every proxy hop");
  });
});

describe('HttpLimiter', () => {
  it('admits the quota, then answers 429 with Retry-After and the JSON body', () => {
    const { check } = setup({ limit: 'throttle:3,1' });
    const verdicts = [
      check(view({ raw: {} })),
      check(view({ raw: {} })),
      check(view({ raw: {} })),
      check(view({ raw: {} })),
    ];
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
    expect(verdicts.map((v) => header(v, 'X-RateLimit-Remaining'))).toEqual(['2', '1', '0', '0']);
    const denied = verdicts[3]!;
    expect(denied.statusCode).toBe(429);
    expect(header(denied, 'Retry-After')).toBe('20');
    expect(JSON.parse(denied.body as string)).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: 'Rate limit exceeded, retry in 20 seconds',
    });
    expect(header(verdicts[0]!, 'X-RateLimit-Reset')).toBe(String(EPOCH / 1000 + 20));
  });

  it('keys routes, users and IPs apart; groups IPv6 by /64 and maps IPv4-mapped addresses', () => {
    const { check, store } = setup({ limit: 'throttle:1,1' });
    expect(check(view({ raw: {} })).allowed).toBe(true);
    expect(check(view({ route: 'GET /b', raw: {} })).allowed).toBe(true);
    expect(check(view({ userId: 7, raw: {} })).allowed).toBe(true);
    expect(check(view({ ip: '::ffff:10.0.0.1', raw: {} })).allowed).toBe(false);
    expect(check(view({ ip: '2001:db8:1:2::1', raw: {} })).allowed).toBe(true);
    expect(check(view({ ip: '2001:db8:1:2:ffff::9', raw: {} })).allowed).toBe(false);
    expect(check(view({ ip: '2001:db8:1:3::1', raw: {} })).allowed).toBe(true);
    expect(store.inspect('sl:1-per-60000ms:GET /a:ip:2001:db8:1:2::/64')).toBeDefined();
    expect(store.inspect('sl:1-per-60000ms:GET /a:user:7')).toBeDefined();
  });

  it('hashes unusual or long key segments', () => {
    const { check, store } = setup({
      limit: 'throttle:5,1',
      key: (req) => String(req.headers['x-key']),
    });
    check(view({ headers: { 'x-key': '{evil}' }, raw: {} }));
    check(view({ headers: { 'x-key': 'x'.repeat(10_000) }, raw: {} }));
    expect(store.size).toBe(2);
    expect(store.inspect('sl:5-per-60000ms:{evil}')).toBeUndefined();
    // The rule of request-key.ts, worked out here: '#' + the first 22 characters of the
    // base64url SHA-256 digest of the segment's UTF-8 text.
    const hashed = (text: string) =>
      `#${createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 22)}`;
    expect(hashed('{evil}')).toMatch(/^#[\w-]{22}$/);
    expect(store.inspect(`sl:5-per-60000ms:${hashed('{evil}')}`)).toBeDefined();
    expect(store.inspect(`sl:5-per-60000ms:${hashed('x'.repeat(10_000))}`)).toBeDefined();
  });

  it('with several limits, a request denied by one consumes from none', () => {
    const { check } = setup({ limit: [Limit.perMinute(2), Limit.perMinute(5).named('wide')] });
    check(view({ raw: {} }));
    check(view({ raw: {} }));
    const third = check(view({ raw: {} }));
    expect(third.allowed).toBe(false);
    // The wide limit was charged only for the two admitted requests.
    expect(third.decisions[1]!.remaining).toBe(3);
  });

  it('charges a request once per key even when checked twice (global + per-route)', () => {
    const { check } = setup({ limit: 'throttle:5,1' });
    const raw = {};
    const first = check(view({ raw }));
    const second = check(view({ raw }));
    expect(first.decision.remaining).toBe(4);
    expect(second.decision.remaining).toBe(4);
    expect(check(view({ raw: {} })).decision.remaining).toBe(3);
  });

  it('named limiters resolve per request; skip bypasses; onLimited sees the denial', () => {
    const registry = new ThrottleRegistry();
    registry.define('api', (req) => Limit.perMinute(1).by(String(req.userId ?? req.ip)));
    const limited: number[] = [];
    const { check } = setup({
      limit: 'throttle:api',
      throttles: registry,
      skip: (req) => req.headers['x-skip'] === '1',
      onLimited: (_req, d) => limited.push(d.retryAfterMs),
    });
    expect(check(view({ userId: 'ann', raw: {} })).allowed).toBe(true);
    expect(check(view({ userId: 'ann', route: 'GET /other', raw: {} })).allowed).toBe(false);
    expect(check(view({ userId: 'bob', raw: {} })).allowed).toBe(true);
    expect(check(view({ userId: 'ann', headers: { 'x-skip': '1' }, raw: {} }))).toBeUndefined();
    expect(limited).toEqual([60_000]);
  });

  it('draft-8 headers list one member per limit', () => {
    const { check } = setup({
      limit: [Limit.perMinute(10).named('burst'), Limit.perDay(100).named('daily')],
      headers: 'draft-8',
    });
    const v = check(view({ raw: {} }));
    expect(header(v, 'RateLimit-Policy')).toBe('"burst";q=10;w=60, "daily";q=100;w=86400');
    expect(header(v, 'RateLimit')).toBe('"burst";r=9;t=6, "daily";r=99;t=864');
    expect(header(v, 'X-RateLimit-Limit')).toBeUndefined();
  });

  it('writeHeaders writes the headers pairs, and with lowercase the same in lower case', () => {
    const styles = ['legacy', 'draft-6', 'draft-7', 'draft-8'] as const;
    const { check } = setup({ limit: ['throttle:2,1', 'throttle:5,60'], headers: [...styles] });
    for (let i = 0; i < 3; i++) {
      const v = check(view({ raw: {} }));
      const written: [string, string][] = [];
      const lower: [string, string][] = [];
      v.writeHeaders(written, (out, n, value) => out.push([n, value]));
      v.writeHeaders(lower, (out, n, value) => out.push([n, value]), true);
      expect(written).toEqual(v.headers);
      expect(lower).toEqual(v.headers.map(([n, value]) => [n.toLowerCase(), value]));
      expect(written.map(([n]) => n)).toContain(i < 2 ? 'X-RateLimit-Limit' : 'Retry-After');
      expect(lower.some(([n]) => n !== n.toLowerCase())).toBe(false);
    }
  });

  it('rejects bad options at construction, naming them', () => {
    expect(() => new HttpLimiter({ limit: 'throttle:nope-not-defined' })).toThrow(
      /nope-not-defined/,
    );
    expect(() => new HttpLimiter({ headers: 'draft-12' as never })).toThrow(/headers.*draft-12/);
    expect(() => new HttpLimiter({ algorithm: 'magic' as never })).toThrow(/algorithm.*magic/);
    expect(() => new HttpLimiter({ statusCode: 200 })).toThrow(/statusCode.*200/);
    expect(() => new HttpLimiter({ ipv6Subnet: 129 })).toThrow(/ipv6Subnet.*129/);
    // Neither a number 1..128 nor a function: refused naming the option.
    for (const bad of ['56', true, {}, 0, 56.5, Number.NaN]) {
      expect(() => new HttpLimiter({ ipv6Subnet: bad as never })).toThrow(
        expect.objectContaining({ option: 'ipv6Subnet' }),
      );
    }
    for (const good of [1, 128, () => 56]) {
      expect(() => new HttpLimiter({ ipv6Subnet: good })).not.toThrow();
    }
  });
});

describe('HttpLimiter key spaces on a MemoryStore', () => {
  /** A Store that is not a MemoryStore: the limiter uses full key strings with it. */
  class FullKeyStore {
    readonly keys: string[] = [];
    readonly inner = new MemoryStore();
    consume(...args: Parameters<MemoryStore['consume']>) {
      this.keys.push(args[0]);
      return this.inner.consume(...args);
    }
    reset(key: string) {
      this.inner.reset(key);
    }
  }

  it('a request reaching two limiters is charged once per key and store, whatever the store', async () => {
    const shared = new FullKeyStore();
    const other = new FullKeyStore();
    const options = { limit: 'throttle:5,1', clock: () => EPOCH };
    const first = new HttpLimiter({ ...options, store: shared as never });
    const second = new HttpLimiter({ ...options, store: shared as never });
    const elsewhere = new HttpLimiter({ ...options, store: other as never });
    const raw = {};
    await first.check(view({ raw }));
    const again = (await second.check(view({ raw }))) as HttpVerdict;
    await elsewhere.check(view({ raw }));
    expect(shared.keys).toEqual(['sl:5-per-60000ms:GET /a:ip:10.0.0.1']);
    expect(again.decision.remaining).toBe(4);
    expect(other.keys).toHaveLength(1);
  });

  it('decides exactly as with full key strings, on every keying path, and keys read back by their text', async () => {
    const registry = new ThrottleRegistry();
    // A per-request named limiter (its limits are made for each request).
    registry.define('dyn', (req) => [
      Limit.perMinute(3).by(req.route),
      Limit.perMinute(5).named(`p${req.ip.length % 2}`),
    ]);
    const configs: ConstructorParameters<typeof HttpLimiter>[0][] = [
      { limit: 'throttle:4,1' },
      { limit: ['throttle:3,1', Limit.perMinute(5).by('shared')] },
      { limit: 'throttle:dyn', throttles: registry },
      { limit: 'throttle:6,1', key: (v) => v.route },
    ];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (const options of configs) {
      const time = { now: EPOCH };
      const memory = new MemoryStore();
      const full = new FullKeyStore();
      const spaced = new HttpLimiter({ ...options, store: memory, clock: () => time.now });
      const plain = new HttpLimiter({ ...options, store: full as never, clock: () => time.now });
      for (let i = 0; i < 400; i++) {
        time.now += random(4000);
        const over: Partial<RequestView> = {
          route: ['GET /a', 'POST /b', 'GET /c/:id'][random(3)]!,
          ip: ['10.0.0.1', '10.0.0.22', '2001:db8::1', '::ffff:10.0.0.1'][random(4)]!,
          userId: [undefined, 'u1', 42][random(3)],
        };
        // The same request object twice now and then: charged once by both.
        const raws = random(5) === 0 ? [{}, {}] : [{}];
        for (const raw of raws) {
          const a = spaced.check(view({ ...over, raw })) as HttpVerdict;
          const b = (await plain.check(view({ ...over, raw }))) as HttpVerdict;
          expect(a.decisions).toEqual(b.decisions);
          const again = spaced.check(view({ ...over, raw })) as HttpVerdict;
          expect(again.decision).toEqual(a.decision);
        }
      }
      // Fewer store calls than checks: the FailSafeStore's over-limit cache answers the keys
      // the store has just denied (with the same decisions, as the loop checked).
      expect(full.keys.length).toBeGreaterThan(200);
      for (const key of new Set(full.keys)) {
        expect(memory.inspect(key)).toEqual(full.inner.inspect(key));
      }
    }
  });
});
