import { Limit, MemoryStore, ThrottleRegistry } from '@sluice/core';
import { EPOCH } from './epoch.js';
import { requestHeader } from './framework-shapes.js';
import { type AdapterHarness, type AppSpec, withApp as run, statuses } from './http-harness.js';
import { afterFinish } from './http-outcome-rules.js';

/**
 * Rows of the shared behaviour table for limits taken from the application's data: async
 * resolvers (a named limiter, the `limit`, `key`, `user` and `skip` options returning
 * promises), resolvers that reject, and resolvers that give a value of the wrong kind. Each
 * row runs on Express, Fastify and Koa alike.
 */
export function describeAppDataRules(harness: AdapterHarness): void {
  const base = () => {
    const time = { now: EPOCH };
    return { store: new MemoryStore(), clock: () => time.now };
  };
  const withApp = (spec: AppSpec, fn: Parameters<typeof run>[2]) => run(harness, spec, fn);
  const as = (user: string) => ({ 'x-user': user });
  /** A lookup that answers on a later turn of the event loop, like a database. */
  const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));
  /** The `x-user` header of a framework request (Express, Fastify and Koa all have `headers`). */
  const headerUser = (req: unknown) => requestHeader(req, 'x-user');

  describe(`limits from the application's data: async resolvers (${harness.name})`, () => {
    it('an async named limiter limits each tenant by the plan it looks up', async () => {
      const plans: Record<string, number> = { pro: 3, free: 1 };
      const throttles = new ThrottleRegistry().define('plan', async (req) =>
        Limit.perMinute(await later(plans[String(req.headers['x-user'])] ?? 1)).by(
          String(req.headers['x-user']),
        ),
      );
      const spec: AppSpec = {
        routes: [
          { method: 'GET', path: '/r', limit: 'throttle:plan', options: { ...base(), throttles } },
        ],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 4, '/r', as('pro'))).toEqual([200, 200, 200, 429]);
        expect(await statuses(client, 2, '/r', as('free'))).toEqual([200, 429]);
        const r = await client.request('GET', '/r', as('pro'));
        expect(r.headers['x-ratelimit-limit']).toBe('3');
        expect(client.handlerRuns('GET', '/r')).toBe(4);
      });
    });

    it('an async limit function is awaited (express-rate-limit async limit)', async () => {
      const spec: AppSpec = {
        global: {
          ...base(),
          limit: async (req) => Limit.perMinute(await later(req.headers['x-user'] ? 2 : 1)),
        },
        routes: [{ method: 'GET', path: '/r' }],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 3, '/r', as('alice'))).toEqual([200, 200, 429]);
      });
    });

    it('an async key gives each client its own bucket, never one shared bucket', async () => {
      const spec: AppSpec = {
        global: {
          ...base(),
          limit: 'throttle:2,1',
          key: async (req) => later(String(req.headers['x-user'])),
        },
        routes: [{ method: 'GET', path: '/r' }],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 3, '/r', as('alice'))).toEqual([200, 200, 429]);
        expect(await statuses(client, 2, '/r', as('bob'))).toEqual([200, 200]);
      });
    });

    it('an async user keys the request by the id it resolves to', async () => {
      const spec: AppSpec = {
        global: { ...base(), limit: 'throttle:1,1', user: async (req) => later(headerUser(req)) },
        routes: [{ method: 'GET', path: '/r' }],
      };
      await withApp(spec, async (client) => {
        const first = await client.request('GET', '/r', as('alice'));
        expect(first.body).toMatchObject({ rateLimit: { remaining: 0 } });
        expect(await statuses(client, 1, '/r', as('alice'))).toEqual([429]);
        expect(await statuses(client, 1, '/r', as('bob'))).toEqual([200]);
      });
    });

    it('an async skip is awaited: a promise of false is limited, of true is skipped', async () => {
      const spec: AppSpec = {
        global: {
          ...base(),
          limit: 'throttle:1,1',
          skip: async (req) => later(req.headers['x-user'] === 'health'),
        },
        routes: [{ method: 'GET', path: '/r' }],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 2, '/r', as('alice'))).toEqual([200, 429]);
        const skipped = await client.request('GET', '/r', as('health'));
        expect(skipped.status).toBe(200);
        expect(skipped.headers['x-ratelimit-limit']).toBeUndefined();
      });
    });

    it('a resolver that rejects or throws is a 500, never an unlimited request', async () => {
      const throttles = new ThrottleRegistry()
        .define('down', async () => {
          await later(0);
          throw new Error('plans database down');
        })
        .define('throws', () => {
          throw new Error('bug');
        });
      const options = { ...base(), throttles };
      const spec: AppSpec = {
        routes: [
          { method: 'GET', path: '/down', limit: 'throttle:down', options },
          { method: 'GET', path: '/throws', limit: 'throttle:throws', options },
          {
            method: 'GET',
            path: '/key',
            limit: 'throttle:5,1',
            options: { ...base(), key: async () => Promise.reject(new Error('no key')) },
          },
          {
            method: 'GET',
            path: '/user',
            limit: 'throttle:5,1',
            options: { ...base(), user: async () => Promise.reject(new Error('no user')) },
          },
          {
            method: 'GET',
            path: '/skip',
            limit: 'throttle:5,1',
            options: { ...base(), skip: async () => Promise.reject(new Error('no skip')) },
          },
        ],
      };
      await withApp(spec, async (client) => {
        for (const path of ['/down', '/throws', '/key', '/user', '/skip']) {
          expect([path, (await client.request('GET', path)).status]).toEqual([path, 500]);
          expect([path, client.handlerRuns('GET', path)]).toEqual([path, 0]);
        }
      });
    });

    it('a promise where a value is needed is a 500 naming the resolver, not a shared key', async () => {
      const throttles = new ThrottleRegistry().define(
        'forgot',
        (async () => undefined) as unknown as () => Limit,
      );
      const spec: AppSpec = {
        routes: [
          {
            method: 'GET',
            path: '/named',
            limit: 'throttle:forgot',
            options: { ...base(), throttles },
          },
          {
            method: 'GET',
            path: '/key',
            limit: 'throttle:5,1',
            // A key function returning a promise of a promise-like object, not a string.
            options: { ...base(), key: async () => ({}) as unknown as string },
          },
        ],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 2, '/named')).toEqual([500, 500]);
        expect(await statuses(client, 2, '/key')).toEqual([500, 500]);
        expect(client.handlerRuns('GET', '/named') + client.handlerRuns('GET', '/key')).toBe(0);
      });
    });
  });

  describe(`limits from the application's data: calendar quotas (${harness.name})`, () => {
    it('a calendar day counts to the next local midnight: denied at 23:59:59, Retry-After 1', async () => {
      // 23:59:59 in New York (UTC-5) on 2025-01-31.
      const time = { now: Date.UTC(2025, 1, 1, 4, 59, 59) };
      const spec: AppSpec = {
        routes: [
          {
            method: 'GET',
            path: '/r',
            limit: Limit.perCalendarDay(2, { timeZone: 'America/New_York' }),
            options: { store: new MemoryStore(), clock: () => time.now },
          },
        ],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 2, '/r')).toEqual([200, 200]);
        const denied = await client.request('GET', '/r');
        expect(denied.status).toBe(429);
        expect(denied.headers['retry-after']).toBe('1');
        expect(denied.headers['x-ratelimit-reset']).toBe(String(Date.UTC(2025, 1, 1, 5) / 1000));
        time.now += 1000; // local midnight: a new day
        expect(await statuses(client, 2, '/r')).toEqual([200, 200]);
      });
    });
  });

  describe(`limits from the application's data: cost from the response (${harness.name})`, () => {
    /** The `x-units` header of a framework request: what the "response" used. */
    const unitsOf = (req: unknown) => Number(requestHeader(req, 'x-units'));
    const used = (n: number | string) => ({ 'x-units': String(n) });

    it('reserves on arrival, gives back what the response did not use, charges what it used past the quota', async () => {
      const time = { now: EPOCH };
      const logged: string[] = [];
      const limit = Limit.perMinute(10)
        .named('tokens')
        .costAfter(unitsOf, { upfront: 4, unit: 'tokens' });
      const spec: AppSpec = {
        routes: [
          {
            method: 'GET',
            path: '/chat',
            limit,
            options: {
              store: new MemoryStore(),
              clock: () => time.now,
              algorithm: 'fixed-window',
              headers: ['legacy', 'draft-8'],
              logger: { warn: (m: string) => logged.push(m) },
            },
          },
        ],
      };
      await withApp(spec, async (client) => {
        const first = await client.request('GET', '/chat', used(1));
        // The reserve (4) was charged on arrival.
        expect(first.headers['x-ratelimit-remaining']).toBe('6');
        expect(first.headers['ratelimit-policy']).toBe('"tokens";q=10;qu="tokens";w=60');
        await afterFinish();
        // Settled to 1 unit: 3 given back, so 9 remain before this one's reserve.
        const second = await client.request('GET', '/chat', used(20));
        expect(second.headers['x-ratelimit-remaining']).toBe('5');
        await afterFinish();
        // 1 + 20 units used: in debt past the quota, denied until the window ends.
        const denied = await client.request('GET', '/chat', used(1));
        expect(denied.status).toBe(429);
        expect(denied.headers['retry-after']).toBe('60');
        // A units function that gives garbage keeps the upfront charge and logs, never a crash.
        time.now += 60_000;
        const bad = await client.request('GET', '/chat', used('NaN'));
        expect(bad.status).toBe(200);
        await afterFinish();
        const after = await client.request('GET', '/chat', used(0));
        expect(after.headers['x-ratelimit-remaining']).toBe('2');
        expect(logged.some((m) => m.includes('costAfter') && m.includes('NaN'))).toBe(true);
        expect(client.handlerRuns('GET', '/chat')).toBe(4);
      });
    });

    it('a response skipFailedRequests skips gives back its whole reserve, without asking units', async () => {
      const time = { now: EPOCH };
      let asked = 0;
      const counted = (req: unknown) => {
        asked++;
        return unitsOf(req);
      };
      const spec: AppSpec = {
        routes: [
          {
            method: 'POST',
            path: '/chat',
            limit: Limit.perMinute(10).costAfter(counted, { upfront: 4 }),
            options: {
              store: new MemoryStore(),
              clock: () => time.now,
              algorithm: 'fixed-window',
              skipFailedRequests: true,
            },
          },
        ],
      };
      await withApp(spec, async (client) => {
        const failed = await client.request('POST', '/chat', { ...used(1), 'x-status': '500' });
        expect(failed.status).toBe(500);
        await afterFinish();
        expect(asked).toBe(0);
        // The failed response's reserve came back whole (settled to 1 unit it would be 5).
        const ok = await client.request('POST', '/chat', used(1));
        expect(ok.headers['x-ratelimit-remaining']).toBe('6');
        await afterFinish();
        expect(asked).toBe(1);
        // The successful one settled to the 1 unit it used: 9 left before the next reserve.
        const next = await client.request('POST', '/chat', used(1));
        expect(next.headers['x-ratelimit-remaining']).toBe('5');
      });
    });

    it('a key in debt on GCRA waits exactly for its debt to drain', async () => {
      const time = { now: EPOCH };
      const spec: AppSpec = {
        routes: [
          {
            method: 'GET',
            path: '/chat',
            // 60 units per minute: one unit drains per second.
            limit: Limit.perMinute(60).costAfter(unitsOf),
            options: { store: new MemoryStore(), clock: () => time.now },
          },
        ],
      };
      await withApp(spec, async (client) => {
        expect((await client.request('GET', '/chat', used(90))).status).toBe(200);
        await afterFinish();
        const denied = await client.request('GET', '/chat', used(1));
        expect(denied.status).toBe(429);
        // 90 units charged: 30 past the burst of 60, plus this request's 1-unit reserve.
        expect(denied.headers['retry-after']).toBe('31');
        time.now += 31_000;
        expect((await client.request('GET', '/chat', used(1))).status).toBe(200);
      });
    });
  });
}
