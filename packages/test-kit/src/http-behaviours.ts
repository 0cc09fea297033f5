/// <reference types="jest" />
import {
  type Decision,
  type HttpLimitOptions,
  Limit,
  MemoryStore,
  ThrottleRegistry,
} from '@sluice/core';
import { EPOCH } from './epoch.js';
import {
  type AdapterHarness,
  type AppSpec,
  withApp as run,
  statuses,
  type TestClient,
  type TestResponse,
} from './http-harness.js';

/**
 * The shared table of HTTP behaviours. Each adapter's test calls
 * `describeHttpBehaviours(harness)` with its own {@link AdapterHarness}; every case builds a
 * fresh app with a fresh `MemoryStore` and an injected clock, so headers are exact and no
 * state is shared between cases.
 *
 * The cases only assert what is the same in every framework: the global limiter's route
 * segment (`'*'` before routing in Express/Koa, the matched route in Fastify) and whether a
 * per-route limit adds to or replaces the global one are adapter-specific and are tested in
 * each adapter's own file.
 */

/** EPOCH in seconds: a whole number, so `X-RateLimit-Reset` values are easy to read. */
const EPOCH_S = EPOCH / 1000;

interface Fixture {
  time: { now: number };
  store: MemoryStore;
  /** Options every limiter of the app shares: the fresh store and the fake clock. */
  base: Pick<HttpLimitOptions, 'store' | 'clock'>;
}

function fixture(): Fixture {
  const time = { now: EPOCH };
  const store = new MemoryStore();
  return { time, store, base: { store, clock: () => time.now } };
}

const rateHeaders = (r: TestResponse) => [
  r.headers['x-ratelimit-limit'],
  r.headers['x-ratelimit-remaining'],
  r.headers['x-ratelimit-reset'],
];

const bearer = (user: string) => ({ authorization: `Bearer ${user}` });
const forwardedFor = (ip: string) => ({ 'x-forwarded-for': ip });

const deniedBody = (seconds: number) => ({
  statusCode: 429,
  error: 'Too Many Requests',
  message: `Rate limit exceeded, retry in ${seconds} seconds`,
});

/** Registers the shared table of HTTP behaviours (jest `describe` blocks) for one adapter. */
export function describeHttpBehaviours(harness: AdapterHarness): void {
  const withApp = (spec: AppSpec, fn: (client: TestClient) => Promise<void>) =>
    run(harness, spec, fn);

  describe(`HTTP behaviours (${harness.name})`, () => {
    describe('quota, headers and the 429 answer', () => {
      it('admits N requests, then answers 429 without running the handler', async () => {
        const { base } = fixture();
        await withApp(
          { global: { ...base, limit: 'throttle:3,1' }, routes: [{ method: 'GET', path: '/a' }] },
          async (client) => {
            expect(await statuses(client, 5, '/a')).toEqual([200, 200, 200, 429, 429]);
            expect(client.handlerRuns('GET', '/a')).toBe(3);
          },
        );
      });

      it('sends exact X-RateLimit-Limit/Remaining/Reset on every response', async () => {
        const { base } = fixture();
        await withApp(
          { global: { ...base, limit: 'throttle:3,1' }, routes: [{ method: 'GET', path: '/a' }] },
          async (client) => {
            const seen: (string | undefined)[][] = [];
            for (let i = 0; i < 4; i++) seen.push(rateHeaders(await client.request('GET', '/a')));
            // GCRA 3 per 60 s: one unit comes back every 20 s; Reset = when the key is full.
            expect(seen).toEqual([
              ['3', '2', String(EPOCH_S + 20)],
              ['3', '1', String(EPOCH_S + 40)],
              ['3', '0', String(EPOCH_S + 60)],
              ['3', '0', String(EPOCH_S + 60)],
            ]);
          },
        );
      });

      it('denies with Retry-After = ceil(retryAfterMs / 1000); after that long the next request passes', async () => {
        const { base, time } = fixture();
        await withApp(
          { global: { ...base, limit: 'throttle:3,1' }, routes: [{ method: 'GET', path: '/a' }] },
          async (client) => {
            await statuses(client, 3, '/a');
            const denied = await client.request('GET', '/a');
            expect(denied.status).toBe(429);
            expect(denied.headers['retry-after']).toBe('20');
            expect(denied.headers['x-ratelimit-remaining']).toBe('0');
            time.now += 19_999;
            expect((await client.request('GET', '/a')).status).toBe(429);
            time.now += 1;
            const again = await client.request('GET', '/a');
            expect(again.status).toBe(200);
            expect(rateHeaders(again)).toEqual(['3', '0', String(EPOCH_S + 80)]);
          },
        );
      });

      it('answers exactly {"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry in N seconds"} as JSON', async () => {
        const { base } = fixture();
        await withApp(
          { global: { ...base, limit: '2/min' }, routes: [{ method: 'GET', path: '/a' }] },
          async (client) => {
            await statuses(client, 2, '/a');
            const denied = await client.request('GET', '/a');
            expect(denied.status).toBe(429);
            expect(denied.headers['content-type']).toMatch(/^application\/json/);
            expect(denied.body).toEqual(deniedBody(30));
            expect(Object.keys(denied.body as object)).toEqual(['statusCode', 'error', 'message']);
          },
        );
      });

      it('custom message and statusCode', async () => {
        const { base } = fixture();
        await withApp(
          {
            global: { ...base, limit: 'throttle:1,1', message: 'Slow down', statusCode: 503 },
            routes: [{ method: 'GET', path: '/a' }],
          },
          async (client) => {
            await client.request('GET', '/a');
            const denied = await client.request('GET', '/a');
            expect(denied.status).toBe(503);
            expect(denied.body).toEqual({
              statusCode: 503,
              error: 'Service Unavailable',
              message: 'Slow down',
            });
            expect(denied.headers['retry-after']).toBe('60');
            expect(client.handlerRuns('GET', '/a')).toBe(1);
          },
        );
      });

      it('a message function returning an object is sent as that JSON', async () => {
        const { base } = fixture();
        await withApp(
          {
            global: {
              ...base,
              limit: 'throttle:1,1',
              message: (req, d) => ({ route: req.method, waitMs: d.retryAfterMs }),
            },
            routes: [{ method: 'GET', path: '/a' }],
          },
          async (client) => {
            await client.request('GET', '/a');
            const denied = await client.request('GET', '/a');
            expect(denied.status).toBe(429);
            expect(denied.headers['content-type']).toMatch(/^application\/json/);
            expect(denied.body).toEqual({ route: 'GET', waitMs: 60_000 });
          },
        );
      });

      it('calls onLimited once per denied request, with the denial', async () => {
        const { base } = fixture();
        const calls: Decision[] = [];
        await withApp(
          {
            global: { ...base, limit: 'throttle:1,1', onLimited: (_req, d) => calls.push(d) },
            routes: [{ method: 'GET', path: '/a' }],
          },
          async (client) => {
            expect(await statuses(client, 3, '/a')).toEqual([200, 429, 429]);
            expect(calls).toHaveLength(2);
            expect(calls.every((d) => !d.allowed && d.retryAfterMs === 60_000)).toBe(true);
          },
        );
      });

      it('exposes the decision on the request (req.rateLimit / request.rateLimit / ctx.state.rateLimit)', async () => {
        const { base } = fixture();
        await withApp(
          { global: { ...base, limit: 'throttle:3,1' }, routes: [{ method: 'GET', path: '/a' }] },
          async (client) => {
            const r = await client.request('GET', '/a');
            expect(r.body).toEqual({
              ok: true,
              rateLimit: {
                allowed: true,
                limit: 3,
                remaining: 2,
                retryAfterMs: 0,
                resetAfterMs: 20_000,
                cost: 1,
              },
            });
          },
        );
      });
    });

    describe('keys', () => {
      it('keys routes apart', async () => {
        const { base } = fixture();
        await withApp(
          {
            routes: [
              { method: 'GET', path: '/a', limit: 'throttle:1,1', options: base },
              { method: 'GET', path: '/b', limit: 'throttle:1,1', options: base },
            ],
          },
          async (client) => {
            expect(await statuses(client, 2, '/a')).toEqual([200, 429]);
            expect(await statuses(client, 2, '/b')).toEqual([200, 429]);
          },
        );
      });

      it('keys users apart (bearerUser), and anonymous requests by IP', async () => {
        const { base } = fixture();
        await withApp(
          {
            bearerUser: true,
            routes: [{ method: 'GET', path: '/a', limit: 'throttle:1,1', options: base }],
          },
          async (client) => {
            expect(await statuses(client, 2, '/a', bearer('ann'))).toEqual([200, 429]);
            expect(await statuses(client, 2, '/a', bearer('bob'))).toEqual([200, 429]);
            expect(await statuses(client, 2, '/a')).toEqual([200, 429]);
          },
        );
      });

      it('groups IPv6 clients by /64 and treats IPv4-mapped IPv6 as IPv4 (trusted X-Forwarded-For)', async () => {
        const { base } = fixture();
        await withApp(
          {
            trustProxy: true,
            global: { ...base, limit: 'throttle:1,1' },
            routes: [{ method: 'GET', path: '/a' }],
          },
          async (client) => {
            const status = async (ip: string) =>
              (await client.request('GET', '/a', forwardedFor(ip))).status;
            expect(await status('2001:db8:1:2::1')).toBe(200);
            expect(await status('2001:db8:1:2:ffff::9')).toBe(429);
            expect(await status('2001:db8:1:3::1')).toBe(200);
            expect(await status('::ffff:10.9.9.9')).toBe(200);
            expect(await status('10.9.9.9')).toBe(429);
            expect(await status('10.9.9.10')).toBe(200);
          },
        );
      });

      it('ignores X-Forwarded-For unless the framework trusts the proxy', async () => {
        const { base } = fixture();
        await withApp(
          { global: { ...base, limit: 'throttle:1,1' }, routes: [{ method: 'GET', path: '/a' }] },
          async (client) => {
            expect((await client.request('GET', '/a', forwardedFor('1.1.1.1'))).status).toBe(200);
            expect((await client.request('GET', '/a', forwardedFor('2.2.2.2'))).status).toBe(429);
          },
        );
      });
    });

    describe('limit forms', () => {
      it("'throttle:60,1': 60 per minute", async () => {
        const { base } = fixture();
        await withApp(
          { routes: [{ method: 'GET', path: '/a', limit: 'throttle:60,1', options: base }] },
          async (client) => {
            const first = await client.request('GET', '/a');
            expect(rateHeaders(first)).toEqual(['60', '59', String(EPOCH_S + 1)]);
            const rest = await statuses(client, 60, '/a');
            expect(rest.slice(0, 59).every((s) => s === 200)).toBe(true);
            expect(rest[59]).toBe(429);
          },
        );
      });

      it("'throttle:api': a named limiter from the `throttles` registry, resolved per request", async () => {
        const { base } = fixture();
        const registry = new ThrottleRegistry();
        registry.define('api', (req) => Limit.perMinute(2).by(String(req.userId ?? req.ip)));
        await withApp(
          {
            bearerUser: true,
            routes: [
              {
                method: 'GET',
                path: '/a',
                limit: 'throttle:api',
                options: { ...base, throttles: registry },
              },
            ],
          },
          async (client) => {
            const first = await client.request('GET', '/a', bearer('ann'));
            expect(rateHeaders(first)).toEqual(['2', '1', String(EPOCH_S + 30)]);
            expect(await statuses(client, 2, '/a', bearer('ann'))).toEqual([200, 429]);
            expect(await statuses(client, 3, '/a', bearer('bob'))).toEqual([200, 200, 429]);
          },
        );
      });

      it("'10/s': ten per second, Retry-After 1, back after 100 ms", async () => {
        const { base, time } = fixture();
        await withApp(
          { routes: [{ method: 'GET', path: '/a', limit: '10/s', options: base }] },
          async (client) => {
            const all = await statuses(client, 11, '/a');
            expect(all).toEqual([...Array(10).fill(200), 429]);
            const denied = await client.request('GET', '/a');
            expect(denied.headers['retry-after']).toBe('1');
            expect(denied.headers['x-ratelimit-limit']).toBe('10');
            time.now += 100;
            expect((await client.request('GET', '/a')).status).toBe(200);
          },
        );
      });

      it('an array of limits (string and Limit): every one applies; the most restrictive is reported', async () => {
        const { base, time } = fixture();
        await withApp(
          {
            routes: [
              {
                method: 'GET',
                path: '/a',
                limit: ['throttle:5,1', Limit.perSecond(2)],
                options: base,
              },
            ],
          },
          async (client) => {
            const seen: (string | undefined)[][] = [];
            for (let i = 0; i < 2; i++) seen.push(rateHeaders(await client.request('GET', '/a')));
            expect(seen).toEqual([
              ['2', '1', String(EPOCH_S + 1)],
              ['2', '0', String(EPOCH_S + 1)],
            ]);
            const denied = await client.request('GET', '/a');
            expect(denied.status).toBe(429);
            expect(denied.headers['retry-after']).toBe('1');
            // A second later the per-second limit is full again (2 more); the 5/min one
            // (one unit per 12 s) has 3 left.
            time.now += 1000;
            expect(await statuses(client, 3, '/a')).toEqual([200, 200, 429]);
            // One more second: the 5/min limit admits its last unit, then denies for 10 s,
            // and the denial is reported by it (the per-second limit is not charged).
            time.now += 1000;
            expect((await client.request('GET', '/a')).status).toBe(200);
            const last = await client.request('GET', '/a');
            expect(last.status).toBe(429);
            expect(last.headers['x-ratelimit-limit']).toBe('5');
            expect(last.headers['retry-after']).toBe('10');
            expect(client.handlerRuns('GET', '/a')).toBe(5);
          },
        );
      });

      it('a request denied by one limit consumes from none of them', async () => {
        const { base } = fixture();
        const wide = Limit.perMinute(3).named('wide').by('everyone');
        await withApp(
          {
            routes: [
              {
                method: 'GET',
                path: '/a',
                limit: [Limit.perMinute(1).named('narrow'), wide],
                options: base,
              },
              { method: 'GET', path: '/b', limit: wide, options: base },
            ],
          },
          async (client) => {
            expect(await statuses(client, 4, '/a')).toEqual([200, 429, 429, 429]);
            // The three denials took nothing from `wide`: 3 - 1 (/a) - 1 (this one) = 1 left.
            const b = await client.request('GET', '/b');
            expect(b.status).toBe(200);
            expect(b.headers['x-ratelimit-remaining']).toBe('1');
          },
        );
      });

      it('a global limit plus a per-route limit: each route is held to its own', async () => {
        const { base } = fixture();
        await withApp(
          {
            bearerUser: true,
            global: { ...base, limit: 'throttle:3,1' },
            routes: [
              { method: 'GET', path: '/a', limit: 'throttle:2,1', options: base },
              { method: 'GET', path: '/b' },
            ],
          },
          async (client) => {
            const a = await client.request('GET', '/a', bearer('ann'));
            expect(a.headers['x-ratelimit-limit']).toBe('2');
            expect(await statuses(client, 2, '/a', bearer('ann'))).toEqual([200, 429]);
            expect(client.handlerRuns('GET', '/a')).toBe(2);
            const b = await client.request('GET', '/b', bearer('bob'));
            expect(b.headers['x-ratelimit-limit']).toBe('3');
            expect(await statuses(client, 3, '/b', bearer('bob'))).toEqual([200, 200, 429]);
            expect(client.handlerRuns('GET', '/b')).toBe(3);
          },
        );
      });
    });

    describe('skip, opt-out and header formats', () => {
      it('skip: skipped requests are not limited and get no headers', async () => {
        const { base } = fixture();
        await withApp(
          {
            global: {
              ...base,
              limit: 'throttle:1,1',
              skip: (req) => req.headers['x-skip'] === '1',
            },
            routes: [{ method: 'GET', path: '/a' }],
          },
          async (client) => {
            for (let i = 0; i < 3; i++) {
              const r = await client.request('GET', '/a', { 'x-skip': '1' });
              expect(r.status).toBe(200);
              expect(r.headers['x-ratelimit-limit']).toBeUndefined();
            }
            expect(await statuses(client, 2, '/a')).toEqual([200, 429]);
          },
        );
      });

      it('limit: false opts a route out of the global limit (and it charges nothing)', async () => {
        const { base } = fixture();
        await withApp(
          {
            global: { ...base, limit: 'throttle:1,1' },
            routes: [
              { method: 'GET', path: '/open', limit: false },
              { method: 'GET', path: '/limited' },
            ],
          },
          async (client) => {
            for (let i = 0; i < 3; i++) {
              const r = await client.request('GET', '/open');
              expect(r.status).toBe(200);
              expect(r.headers['x-ratelimit-limit']).toBeUndefined();
            }
            expect(client.handlerRuns('GET', '/open')).toBe(3);
            expect(await statuses(client, 2, '/limited')).toEqual([200, 429]);
            expect((await client.request('GET', '/open')).status).toBe(200);
          },
        );
      });

      it("headers: 'draft-8' lists one member per limit", async () => {
        const { base } = fixture();
        await withApp(
          {
            global: {
              ...base,
              headers: 'draft-8',
              limit: [Limit.perMinute(10).named('burst'), Limit.perDay(100).named('daily')],
            },
            routes: [{ method: 'GET', path: '/a' }],
          },
          async (client) => {
            const r = await client.request('GET', '/a');
            expect(r.headers['ratelimit-policy']).toBe('"burst";q=10;w=60, "daily";q=100;w=86400');
            expect(r.headers.ratelimit).toBe('"burst";r=9;t=6, "daily";r=99;t=864');
            expect(r.headers['x-ratelimit-limit']).toBeUndefined();
          },
        );
      });

      it('headers: false sends no rate-limit headers, but still Retry-After on a denial', async () => {
        const { base } = fixture();
        await withApp(
          {
            global: { ...base, headers: false, limit: 'throttle:1,1' },
            routes: [{ method: 'GET', path: '/a' }],
          },
          async (client) => {
            const ok = await client.request('GET', '/a');
            expect(ok.headers['x-ratelimit-limit']).toBeUndefined();
            const denied = await client.request('GET', '/a');
            expect(denied.status).toBe(429);
            expect(denied.headers['retry-after']).toBe('60');
          },
        );
      });
    });
  });
}
