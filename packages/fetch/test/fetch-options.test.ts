import { Limit, MemoryStore, SluiceConfigError } from '@sluice/core';
import { createFetchLimiter, ip, limitFetch } from '../src/index.js';

/** What a Workers KV namespace looks like to code that receives one (get/put/list/getWithMetadata). */
const kvNamespace = {
  get: async () => null,
  getWithMetadata: async () => ({ value: null, metadata: null }),
  put: async () => undefined,
  list: async () => ({ keys: [] }),
  delete: async () => undefined,
};

describe('@sluice/fetch options', () => {
  it('refuses a Workers KV namespace as store, saying why', () => {
    expect(() => createFetchLimiter({ store: kvNamespace as never })).toThrow(SluiceConfigError);
    expect(() => createFetchLimiter({ store: kvNamespace as never })).toThrow(
      /KV is not a counter store \(no atomic increment.*DurableObjectStore/,
    );
  });

  it('limitFetch requires ip, naming it and the resolvers', () => {
    expect(() => limitFetch(() => new Response('ok'), {} as never)).toThrow(/"ip".*ip\.bun\(\)/);
  });

  it('ip.forwardedFor takes the trustedHops-th entry from the right, never the client-written left ones', () => {
    const resolve = ip.forwardedFor({ trustedHops: 2 });
    const req = (xff?: string) =>
      new Request('http://x/', { headers: xff === undefined ? {} : { 'x-forwarded-for': xff } });
    expect(resolve(req('6.6.6.6, 203.0.113.7, 10.0.0.1'))).toBe('203.0.113.7');
    expect(resolve(req('10.0.0.1'))).toBeUndefined(); // did not pass both proxies
    expect(resolve(req())).toBeUndefined();
    expect(() => ip.forwardedFor({ trustedHops: 0 })).toThrow(/"trustedHops"/);
  });

  it('ip.forwardedFor refuses a hop that is not an IP address, as an empty one: no bucket of its text', async () => {
    const resolve = ip.forwardedFor({ trustedHops: 1 });
    const req = (xff: string) => new Request('http://x/', { headers: { 'x-forwarded-for': xff } });
    const junk = [
      'not-an-ip',
      '999.1.1.1',
      '1.2.3',
      '01.2.3.4',
      '9'.repeat(5000),
      '1.2.3.4:80',
      ' ',
    ];
    for (const hop of junk) expect(resolve(req(`203.0.113.7, ${hop}`))).toBeUndefined();
    expect(resolve(req('6.6.6.6, 203.0.113.7'))).toBe('203.0.113.7');
    expect(resolve(req('2001:db8::1'))).toBe('2001:db8::1');
    expect(resolve(req('::ffff:203.0.113.7'))).toBe('::ffff:203.0.113.7');
    const handler = limitFetch(() => new Response('ok'), {
      limit: '1/min',
      ip: resolve,
      store: new MemoryStore(),
    });
    for (const hop of ['not-an-ip', '999.1.1.1', '']) {
      await expect(handler(req(hop))).rejects.toThrow(SluiceConfigError);
    }
    expect((await handler(req('203.0.113.7'))).status).toBe(200);
  });

  it('a request whose IP cannot be resolved is a SluiceConfigError, never a shared bucket', async () => {
    const handler = limitFetch(() => new Response('ok'), {
      limit: '1/min',
      ip: ip.cloudflare(),
      store: new MemoryStore(),
    });
    await expect(handler(new Request('http://x/'))).rejects.toThrow(SluiceConfigError);
    const from = (a: string) => new Request('http://x/', { headers: { 'cf-connecting-ip': a } });
    expect((await handler(from('203.0.113.7'))).status).toBe(200);
    expect((await handler(from('203.0.113.8'))).status).toBe(200);
  });

  it("callbacks given the framework's request (RequestView.raw, Limit.adaptive's priority) get the Request", async () => {
    const seen: unknown[] = [];
    const limiter = createFetchLimiter({
      limit: [
        '10/min',
        Limit.adaptive({
          min: 2,
          max: 2,
          loopDelay: false,
          priority: (req) => {
            seen.push(req);
            return 'default';
          },
        }),
      ],
      ip: ip.cloudflare(),
      skip: (view) => {
        seen.push(view.raw);
        return false;
      },
    });
    const request = new Request('http://x/a', { headers: { 'cf-connecting-ip': '10.0.0.1' } });
    const verdict = await limiter.check(request);
    expect(verdict.allowed).toBe(true);
    verdict.abandon();
    expect(seen).toEqual([request, request]);
  });

  it('a Request that takes no property (frozen) is still charged once by stacked limiters', async () => {
    const store = new MemoryStore();
    const global = createFetchLimiter({ limit: '2/min', store });
    const again = createFetchLimiter({ limit: '2/min', store });
    const check = async (req: Request) => {
      await global.check(req, { ip: '203.0.113.5' });
      return again.check(req, { ip: '203.0.113.5' });
    };
    const first = await check(Object.freeze(new Request('http://x/')));
    expect(first.decision?.remaining).toBe(1); // one charge, reported by both
    const second = await check(new Request('http://x/'));
    expect(second.decision?.remaining).toBe(0);
    expect((await check(new Request('http://x/'))).allowed).toBe(false);
  });

  it("apply copies a response whose headers are immutable (a fetch() answer's)", async () => {
    const limiter = createFetchLimiter({ limit: '5/min', ip: () => '203.0.113.7' });
    const verdict = await limiter.check(new Request('http://x/'));
    const immutable = Response.redirect('http://x/elsewhere', 302);
    const applied = verdict.apply(immutable);
    expect(applied.status).toBe(302);
    expect(applied.headers.get('x-ratelimit-limit')).toBe('5');
    expect(applied.headers.get('location')).toBe('http://x/elsewhere');
  });

  it('waitUntil receives the settling of a held lease when the body ends', async () => {
    const pending: Promise<unknown>[] = [];
    const { Limit } = await import('@sluice/core');
    const handler = limitFetch(() => new Response('streamed body'), {
      limit: Limit.concurrent(1).by('x'),
      ip: () => '203.0.113.7',
      waitUntil: (p) => pending.push(p),
    });
    const res = await handler(new Request('http://x/'));
    expect((await handler(new Request('http://x/'))).status).toBe(429); // the lease is held
    await res.text();
    await new Promise((r) => setTimeout(r, 5));
    expect(pending).toHaveLength(1);
    await Promise.all(pending);
    expect((await handler(new Request('http://x/'))).status).toBe(200);
  });
});

describe('withRateLimit (Next.js route handlers and proxy.ts)', () => {
  it("limits the handler and keeps the settling alive with proxy.ts's event.waitUntil", async () => {
    const { Limit } = await import('@sluice/core');
    const { withRateLimit } = await import('../src/index.js');
    const kept: Promise<unknown>[] = [];
    const event = { waitUntil: (p: Promise<unknown>) => kept.push(p) };
    const proxy = withRateLimit(() => new Response('next'), {
      limit: [Limit.perMinute(2), Limit.concurrent(5).by('all')],
      ip: ip.vercel(),
    });
    const req = () => new Request('http://x/api', { headers: { 'x-real-ip': '203.0.113.7' } });
    const first = await proxy(req(), event);
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    await first.text();
    await (await proxy(req(), event)).text();
    expect((await proxy(req(), event)).status).toBe(429);
    await new Promise((r) => setTimeout(r, 5));
    expect(kept).toHaveLength(2); // each allowed request's lease, released under waitUntil
    expect(() => withRateLimit(() => new Response(''), {} as never)).toThrow(
      /Next\.js gives no client address/,
    );
  });
});
