import { SluiceConfigError as CoreConfigError, Limit, RateLimitedError } from '@sluice/core';
import { parseDuration } from '@sluice/core/duration';
import { EPOCH, VirtualTime } from '@sluice/test-kit';
import { pacedFetch, SluiceConfigError, WaitTooLongError } from '../src/index.js';
import { scripted, virtual } from './scripted.js';
import { startServer } from './servers.js';

describe('options are checked at creation', () => {
  it.each([
    ['maxWait', { maxWait: -1 }],
    ['maxWait', { maxWait: Number.NaN }],
    ['maxWait', { maxWait: '10 parsecs' }],
    ['maxWait', { maxWait: '' }],
    ['maxWait', { maxWait: '-5s' }],
    ['maxWait', { maxWait: {} }],
    ['retries', { retries: -1 }],
    ['retries', { retries: Number.NaN }],
    ['retries', { retries: 1.5 }],
    ['clock', { clock: 5 }],
    ['sleep', { sleep: 'soon' }],
  ])('%s: %p', (option, options) => {
    let error: unknown;
    try {
      pacedFetch(fetch, options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect(error).toBeInstanceOf(CoreConfigError);
    expect((error as SluiceConfigError).option).toBe(option);
    expect((error as Error).message).toContain(`"${option}"`);
  });

  it('names every unknown option in one message, with what to write instead', () => {
    let error: unknown;
    try {
      pacedFetch(fetch, { maxWiat: 5, retry: 3, minTime: 100 } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    const message = (error as Error).message;
    expect(message).toContain('"maxWiat" (did you mean "maxWait"?)');
    expect(message).toContain('"retry" (write "retries"');
    expect(message).toContain('"minTime"');
  });

  it('a fetch that is not a function', () => {
    expect(() => pacedFetch(undefined as never)).toThrow(SluiceConfigError);
  });

  it('a bad maxWait string: the message says what a duration is, and shows no part of the string', () => {
    let error: unknown;
    try {
      pacedFetch(fetch, { maxWait: '30 fortnights-secret' });
    } catch (e) {
      error = e;
    }
    expect((error as SluiceConfigError).option).toBe('maxWait');
    expect((error as Error).message).toMatch(/a string like '500ms', '30s', '1 minute'/);
    expect((error as Error).message).not.toContain('fortnights');
  });

  it('accepts the defaults, 0 and Infinity', () => {
    expect(typeof pacedFetch(fetch)).toBe('function');
    expect(() => pacedFetch(fetch, { maxWait: 0, retries: 0 })).not.toThrow();
    expect(() => pacedFetch(fetch, { maxWait: Number.POSITIVE_INFINITY })).not.toThrow();
  });
});

describe('maxWait takes the durations the core takes', () => {
  // The server's policy says: nothing left, the window resets in 5 s.
  const fiveSeconds = (time: VirtualTime) =>
    scripted(time, () => ({
      headers: { 'RateLimit-Policy': '"api";q=1;w=5', RateLimit: '"api";r=0;t=5' },
    }));

  it.each([
    ['10s', 'waits 5 s and sends'],
    ['1 minute', 'waits 5 s and sends'],
    [6000, 'waits 5 s and sends'],
    ['4s', 'rejects at once'],
    ['4500ms', 'rejects at once'],
    [4000, 'rejects at once'],
  ])('maxWait %p: a 5 s wait %s', async (maxWait, outcome) => {
    const time = new VirtualTime(EPOCH);
    const server = fiveSeconds(time);
    const api = pacedFetch(server.fetch, { ...virtual(time), maxWait });
    await api('https://a.test/x');
    const second = await time.run(
      api('https://a.test/x').then(
        (r) => r.status,
        (e: unknown) => e,
      ),
    );
    if (outcome === 'rejects at once') {
      expect(second).toBeInstanceOf(WaitTooLongError);
      expect(server.sent).toHaveLength(1);
      expect(time.now).toBe(EPOCH);
    } else {
      expect(second).toBe(200);
      expect(server.sent).toHaveLength(2);
      expect(time.now - EPOCH).toBeGreaterThanOrEqual(5000);
    }
  });

  it("reads a string as the core's parseDuration does", () => {
    for (const text of ['250ms', '30s', '1 minute', '2m', '1h']) {
      expect(() => pacedFetch(fetch, { maxWait: text })).not.toThrow();
      expect(() => parseDuration('maxWait', text)).not.toThrow();
    }
    for (const text of ['soon', '5 parsecs', '0s']) {
      expect(() => pacedFetch(fetch, { maxWait: text })).toThrow(SluiceConfigError);
      expect(() => parseDuration('maxWait', text)).toThrow(CoreConfigError);
    }
  });
});

describe('pacing from the answers', () => {
  it('a cold origin gets one request; the rest wait for its answer', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({}));
    const api = pacedFetch(server.fetch, virtual(time));
    let firstDone = false;
    const first = api('https://a.test/x').then(() => {
      firstDone = true;
    });
    const rest = Array.from({ length: 4 }, () => api('https://a.test/x'));
    await new Promise((r) => setImmediate(r));
    expect(server.sent).toHaveLength(1);
    await time.run(Promise.all([first, ...rest]));
    expect(firstDone).toBe(true);
    expect(server.sent).toHaveLength(5);
    expect(server.maxInFlight()).toBe(4);
  });

  it('waits while the policy it last saw is spent, until its reset', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, (n) => ({
      headers: {
        'RateLimit-Policy': '"api";q=2;w=5',
        RateLimit: `"api";r=${Math.max(0, 2 - n)};t=5`,
      },
    }));
    const api = pacedFetch(server.fetch, virtual(time));
    await time.run(Promise.all(Array.from({ length: 3 }, () => api('https://a.test/x'))));
    expect(server.sent.map((s) => s.at - EPOCH)).toEqual([0, 0, 5000]);
  });

  it('paths that differ by an id share what is learnt (/items/1, /items/2: /items/:id)', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({ headers: { RateLimit: '"api";r=0;t=3' } }));
    const api = pacedFetch(server.fetch, virtual(time));
    await api('https://a.test/items/1');
    await time.run(api('https://a.test/items/2'));
    await time.run(api('https://a.test/other'));
    // /items/2 waited for the reset /items/1 saw; /other, a route not answered yet, did not.
    expect(server.sent.map((s) => [new URL(s.url).pathname, s.at - EPOCH])).toEqual([
      ['/items/1', 0],
      ['/items/2', 3000],
      ['/other', 3000],
    ]);
  });

  it('callers with different credentials are paced apart', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({ headers: { RateLimit: '"api";r=0;t=30' } }));
    const api = pacedFetch(server.fetch, virtual(time));
    await api('https://a.test/x', { headers: { authorization: 'Bearer alice' } });
    await time.run(api('https://a.test/x', { headers: { authorization: 'Bearer bob' } }));
    expect(server.sent.map((s) => s.at - EPOCH)).toEqual([0, 0]);
  });

  it('origins are paced apart', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({ headers: { RateLimit: '"api";r=0;t=30' } }));
    const api = pacedFetch(server.fetch, virtual(time));
    await time.run(Promise.all([api('https://a.test/'), api('https://b.test/')]));
    expect(server.sent.map((s) => s.at - EPOCH)).toEqual([0, 0]);
  });

  it('a concurrency policy caps the requests in flight at its quota', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({
      headers: {
        'RateLimit-Policy': '"jobs";q=2;qu="concurrent-requests"',
        RateLimit: '"jobs";r=1;t=60',
      },
    }));
    const api = pacedFetch(server.fetch, virtual(time));
    await api('https://a.test/jobs');
    await time.run(Promise.all(Array.from({ length: 10 }, () => api('https://a.test/jobs'))));
    expect(server.sent).toHaveLength(11);
    expect(server.maxInFlight()).toBe(2);
    expect(time.now).toBe(EPOCH);
  });

  it('past maxWait it rejects with WaitTooLongError at once, without sending', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({
      headers: { 'RateLimit-Policy': '"hourly";q=1;w=3600', RateLimit: '"hourly";r=0;t=3600' },
    }));
    const api = pacedFetch(server.fetch, { ...virtual(time), maxWait: 10_000 });
    await api('https://a.test/x');
    const error = await api('https://a.test/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTooLongError);
    expect(error).toMatchObject({ retryAfterMs: 3_600_000, policy: 'hourly' });
    expect(server.sent).toHaveLength(1);
    expect(time.now).toBe(EPOCH);
    // Its own class and brand: not the server side's RateLimitedError of @sluice/core.
    expect(error).not.toBeInstanceOf(RateLimitedError);
    expect((error as Error).name).toBe('WaitTooLongError');
  });

  it('a huge or malformed reset never waits longer than maxWait', async () => {
    const time = new VirtualTime(EPOCH);
    const values = [
      '"api";r=0;t=999999999999999',
      '"api";r=0;t=-5',
      '"api";r=0;t=1e9',
      'garbage;;',
    ];
    const server = scripted(time, (n) => ({
      headers: { RateLimit: values[(n - 1) % values.length]! },
    }));
    const api = pacedFetch(server.fetch, { ...virtual(time), maxWait: 1000 });
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i++) {
      outcomes.push(
        await time.run(
          api('https://a.test/x').then(
            (r) => String(r.status),
            (e: unknown) => (e instanceof WaitTooLongError ? 'limited' : String(e)),
          ),
        ),
      );
    }
    expect(outcomes.every((o) => o === '200' || o === 'limited')).toBe(true);
    expect(time.now - EPOCH).toBeLessThanOrEqual(8 * 1000);
  });

  it('a waiting request is cancelled by its AbortSignal, and not sent', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({ headers: { RateLimit: '"api";r=0;t=30' } }));
    const api = pacedFetch(server.fetch, virtual(time));
    await api('https://a.test/x');
    const controller = new AbortController();
    const waiting = api('https://a.test/x', { signal: controller.signal });
    await new Promise((r) => setImmediate(r));
    controller.abort(new Error('user left'));
    await expect(waiting).rejects.toThrow('user left');
    expect(server.sent).toHaveLength(1);
    const aborted = AbortSignal.abort(new Error('already'));
    await expect(api('https://a.test/x', { signal: aborted })).rejects.toThrow('already');
  });
});

describe('429 and 503 with Retry-After', () => {
  it('retries after Retry-After (seconds), at most `retries` times, then returns the 429', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({ status: 429, headers: { 'Retry-After': '2' } }));
    const api = pacedFetch(server.fetch, { ...virtual(time), retries: 2 });
    const res = await time.run(api('https://a.test/x'));
    expect(res.status).toBe(429);
    expect(server.sent.map((s) => s.at - EPOCH)).toEqual([0, 2000, 4000]);
  });

  it('retries a 503 after an HTTP-date Retry-After and returns the success', async () => {
    const time = new VirtualTime(EPOCH);
    const date = new Date(EPOCH).toUTCString();
    const later = new Date(EPOCH + 3000).toUTCString();
    const server = scripted(time, (n) =>
      n === 1 ? { status: 503, headers: { Date: date, 'Retry-After': later } } : { status: 200 },
    );
    const api = pacedFetch(server.fetch, virtual(time));
    const res = await time.run(api('https://a.test/x'));
    expect(res.status).toBe(200);
    expect(server.sent.map((s) => s.at - EPOCH)).toEqual([0, 3000]);
  });

  it('a Retry-After beyond maxWait rejects with WaitTooLongError naming the violated policy', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({
      status: 429,
      headers: { 'Retry-After': '120', 'Content-Type': 'application/problem+json' },
      body: JSON.stringify({ 'violated-policies': ['daily'] }),
    }));
    const api = pacedFetch(server.fetch, { ...virtual(time), maxWait: 60_000 });
    const error = await time.run(api('https://a.test/x').catch((e: unknown) => e));
    expect(error).toBeInstanceOf(WaitTooLongError);
    expect(error).toMatchObject({ retryAfterMs: 120_000, policy: 'daily' });
    expect(server.sent).toHaveLength(1);
  });

  it('retries: 0 returns the first 429', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({ status: 429, headers: { 'Retry-After': '1' } }));
    const api = pacedFetch(server.fetch, { ...virtual(time), retries: 0 });
    expect((await time.run(api('https://a.test/x'))).status).toBe(429);
    expect(server.sent).toHaveLength(1);
  });

  it('a Request input is sent again whole (cloned for each try)', async () => {
    const time = new VirtualTime(EPOCH);
    const bodies: string[] = [];
    const fetchFn = time.wrap(async (input: string | URL | Request) => {
      bodies.push(await (input as Request).text());
      return new Response('', {
        status: bodies.length === 1 ? 429 : 200,
        headers: { 'Retry-After': '1' },
      });
    });
    const api = pacedFetch(fetchFn, virtual(time));
    const req = new Request('https://a.test/x', { method: 'POST', body: 'payload' });
    expect((await time.run(api(req))).status).toBe(200);
    expect(bodies).toEqual(['payload', 'payload']);
  });
});

describe('over a real socket', () => {
  it('100 requests to an Express app on 127.0.0.1: no 429', async () => {
    const time = new VirtualTime(EPOCH + 500);
    const server = await startServer({
      adapter: 'express',
      headers: 'draft-8',
      clock: time.clock,
      listen: true,
    });
    try {
      const api = pacedFetch(time.wrap(server.fetch), virtual(time));
      const statuses = await time.run(
        Promise.all(Array.from({ length: 100 }, async () => (await api(server.url)).status)),
      );
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(server.log.filter((l) => l.status === 429)).toEqual([]);
      expect(time.now - EPOCH - 500).toBe(9000);
    } finally {
      await server.close();
    }
  }, 60_000);
});

// Kept after the socket test: with an in-process app started earlier in this file, the
// socket test hangs (any in-process startServer, a plain static limit too; not yet explained).
describe('a 429 without Retry-After while quota is left: the request can never pass', () => {
  it('rejects at once with WaitTooLongError (retryAfterMs Infinity), sent once, not retried', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({
      status: 429,
      headers: { 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '3', 'X-RateLimit-Reset': '1' },
    }));
    const api = pacedFetch(server.fetch, { ...virtual(time), retries: 2 });
    const error = await time.run(api('https://a.test/x').catch((e: unknown) => e));
    expect(error).toBeInstanceOf(WaitTooLongError);
    expect((error as WaitTooLongError).retryAfterMs).toBe(Number.POSITIVE_INFINITY);
    expect((error as Error).message).toContain('can never be admitted');
    expect(server.sent).toHaveLength(1);
  });

  it('a 429 without Retry-After whose policy is spent, or with no headers, is returned as before', async () => {
    const time = new VirtualTime(EPOCH);
    const answers: Record<string, string>[] = [
      { 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '0' },
      {},
    ];
    for (const headers of answers) {
      const server = scripted(time, () => ({ status: 429, headers }));
      const api = pacedFetch(server.fetch, virtual(time));
      expect((await time.run(api('https://a.test/x'))).status).toBe(429);
      expect(server.sent).toHaveLength(1);
    }
  });

  it.each(['legacy', 'draft-8'] as const)(
    'against a sluice server (%s headers): a cost above the quota rejects after one request; a smaller one passes',
    async (headers) => {
      const time = new VirtualTime(EPOCH + 500);
      const server = await startServer({
        adapter: 'express',
        headers,
        clock: time.clock,
        limit: (req) =>
          Limit.perSecond(10)
            .named('api')
            .cost(Number(req.headers['x-cost'] ?? 1)),
      });
      const api = pacedFetch(time.wrap(server.fetch), virtual(time));
      const big = { headers: { 'x-cost': '20' } };
      const error = await time.run(api(server.url, big).catch((e: unknown) => e));
      expect(error).toBeInstanceOf(WaitTooLongError);
      expect((error as WaitTooLongError).retryAfterMs).toBe(Number.POSITIVE_INFINITY);
      expect(server.log.map((l) => l.status)).toEqual([429]);
      expect((await time.run(api(server.url))).status).toBe(200);
      await server.close();
    },
  );
});
