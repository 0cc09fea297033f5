import { MemoryStore, SluiceConfigError } from '@sluice/core';
import { EPOCH } from './epoch.js';
import {
  type AdapterHarness,
  type AppSpec,
  withApp as run,
  statuses,
  type TestClient,
  type TestResponse,
} from './http-harness.js';
import { describeSilentFailureRules } from './http-silent-rules.js';

/**
 * Rows of the shared behaviour table for the rules the core's HTTP pipeline states once for
 * every framework: what a global limit shares, stacking, HEAD,
 * mounted routers, the default store per application, the user-id rule, `@SkipThrottle()`,
 * authentication before the limit, and no silently unlimited route. Each row runs on
 * Express, Fastify and Koa alike and fails if one adapter states the rule differently.
 */
export function describePipelineRules(harness: AdapterHarness): void {
  // Start-up errors and stated answers instead of silent failures: run wherever these are.
  describeSilentFailureRules(harness);
  const base = () => {
    const time = { now: EPOCH };
    return { store: new MemoryStore(), clock: () => time.now };
  };

  const withApp = (spec: AppSpec, fn: (client: TestClient) => Promise<void>) =>
    run(harness, spec, fn);

  const limitOf = (r: TestResponse) => [
    r.headers['x-ratelimit-limit'],
    r.headers['x-ratelimit-remaining'],
  ];
  const from = (ip: string, token?: string) => ({
    'x-forwarded-for': ip,
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  });

  describe(`one pipeline: the same rules on every framework (${harness.name})`, () => {
    it('a global limit is one bucket per client across every route', async () => {
      const spec: AppSpec = {
        global: { ...base(), limit: 'throttle:3,1' },
        routes: [
          { method: 'GET', path: '/a' },
          { method: 'GET', path: '/b' },
        ],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 2, '/a')).toEqual([200, 200]);
        const b = await client.request('GET', '/b');
        expect(limitOf(b)).toEqual(['3', '0']);
        expect(await statuses(client, 1, '/b')).toEqual([429]);
        expect(await statuses(client, 1, '/a')).toEqual([429]);
      });
    });

    it('stacked limiters report the most restrictive decision, in headers and on the request', async () => {
      const options = base();
      const spec: AppSpec = {
        global: { ...options, limit: 'throttle:3,1' },
        routes: [{ method: 'GET', path: '/r', limit: 'throttle:100,1', options }],
      };
      await withApp(spec, async (client) => {
        await client.request('GET', '/r');
        const second = await client.request('GET', '/r');
        expect(limitOf(second)).toEqual(['3', '1']);
        expect(second.body).toMatchObject({ rateLimit: { limit: 3, remaining: 1 } });
        await client.request('GET', '/r');
        const denied = await client.request('GET', '/r');
        expect(denied.status).toBe(429);
        expect(limitOf(denied)).toEqual(['3', '0']);
        expect(denied.headers['retry-after']).toBe('20');
      });
    });

    it('HEAD is keyed as GET: it shares the GET route bucket', async () => {
      const spec: AppSpec = {
        routes: [{ method: 'GET', path: '/r', limit: 'throttle:2,1', options: base() }],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 1, '/r', undefined, 'HEAD')).toEqual([200]);
        expect(await statuses(client, 2, '/r')).toEqual([200, 429]);
        expect(await statuses(client, 1, '/r', undefined, 'HEAD')).toEqual([429]);
      });
    });

    it('a router mounted at /users/:id keys by the pattern: another id is no fresh bucket', async () => {
      const spec: AppSpec = {
        routes: [
          {
            method: 'GET',
            mount: '/users/:id',
            path: '/posts',
            limit: 'throttle:2,1',
            options: base(),
          },
        ],
      };
      await withApp(spec, async (client) => {
        const seen: number[] = [];
        for (const id of [1, 2, 3, 4])
          seen.push((await client.request('GET', `/users/${id}/posts`)).status);
        expect(seen).toEqual([200, 200, 429, 429]);
        expect(client.handlerRuns('GET', '/users/:id/posts')).toBe(2);
      });
    });

    it('without a store option each app has its own counters: two apps in one process are independent', async () => {
      // No `store`: the application's default store.
      const spec: AppSpec = {
        global: { limit: 'throttle:1,1' },
        routes: [{ method: 'GET', path: '/a' }],
      };
      await withApp(spec, async (first) => {
        expect(await statuses(first, 2, '/a')).toEqual([200, 429]);
        await withApp(spec, async (second) => {
          expect(await statuses(second, 1, '/a')).toEqual([200]);
        });
      });
    });

    it('a user id counts only as a non-empty string or a finite number; anything else keys by IP', async () => {
      const spec: AppSpec = {
        global: { ...base(), limit: 'throttle:1,1' },
        routes: [{ method: 'GET', path: '/a' }],
        trustProxy: true,
        bearerUser: true,
        userIds: { obj: { name: 'x' }, arr: ['a'], empty: '', seven: 7 },
      };
      await withApp(spec, async (client) => {
        // Object, array and '' ids from four addresses: four IP buckets, not one shared one.
        expect((await client.request('GET', '/a', from('10.0.0.1', 'obj'))).status).toBe(200);
        expect((await client.request('GET', '/a', from('10.0.0.2', 'obj'))).status).toBe(200);
        expect((await client.request('GET', '/a', from('10.0.0.3', 'arr'))).status).toBe(200);
        expect((await client.request('GET', '/a', from('10.0.0.4', 'empty'))).status).toBe(200);
        expect((await client.request('GET', '/a', from('10.0.0.5', 'empty'))).status).toBe(200);
        // Keyed by IP: 10.0.0.1 is spent whatever id it shows that is not a real one.
        expect((await client.request('GET', '/a', from('10.0.0.1', 'empty'))).status).toBe(429);
        // Real ids (a string, a number) are their own buckets, wherever they come from.
        expect((await client.request('GET', '/a', from('10.0.0.1', 'alice'))).status).toBe(200);
        expect((await client.request('GET', '/a', from('10.0.0.1', 'seven'))).status).toBe(200);
        expect((await client.request('GET', '/a', from('10.0.0.9', 'seven'))).status).toBe(429);
      });
    });

    it('@SkipThrottle() exempts a handler from the global limit; its own per-route limit still applies', async () => {
      const options = base();
      const spec: AppSpec = {
        global: { ...options, limit: 'throttle:1,1' },
        routes: [
          { method: 'GET', path: '/health', skipThrottle: true },
          { method: 'GET', path: '/report', skipThrottle: true, limit: 'throttle:2,1', options },
          { method: 'GET', path: '/a' },
        ],
      };
      await withApp(spec, async (client) => {
        const health = await client.request('GET', '/health');
        expect(health.status).toBe(200);
        expect(health.headers['x-ratelimit-limit']).toBeUndefined();
        expect(await statuses(client, 2, '/health')).toEqual([200, 200]);
        const report = await client.request('GET', '/report');
        expect(limitOf(report)).toEqual(['2', '1']);
        expect(await statuses(client, 2, '/report')).toEqual([200, 429]);
        // The exempt requests took nothing from the global bucket.
        expect(await statuses(client, 2, '/a')).toEqual([200, 429]);
      });
    });

    it('@SkipThrottle() survives .bind(): a bound copy of a marked method is exempt too', async () => {
      const options = base();
      const spec: AppSpec = {
        global: { ...options, limit: 'throttle:1,1' },
        routes: [
          { method: 'GET', path: '/health', skipThrottle: true, bound: true },
          { method: 'GET', path: '/a', bound: true },
        ],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 6, '/health')).toEqual([200, 200, 200, 200, 200, 200]);
        expect(client.handlerRuns('GET', '/health')).toBe(6);
        // An unmarked bound handler is still held to the global limit.
        expect(await statuses(client, 2, '/a')).toEqual([200, 429]);
      });
    });

    it('a limit can key by the user authentication sets just before the handler', async () => {
      const spec: AppSpec = {
        global: { ...base(), limit: 'throttle:1,1' },
        routes: [{ method: 'GET', path: '/a' }],
        bearerUser: true,
        lateAuth: true,
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 2, '/a', { authorization: 'Bearer alice' })).toEqual([
          200, 429,
        ]);
        expect(await statuses(client, 1, '/a', { authorization: 'Bearer bob' })).toEqual([200]);
      });
    });

    it('a per-route limit is never silently unlimited: refused at startup or enforced', async () => {
      const options = base();
      const route = { method: 'GET' as const, path: '/x', limit: 'throttle:1,1', options };
      const spec: AppSpec = { global: { ...options, limit: 'throttle:5,1' }, routes: [route] };
      const started = await harness.startOutOfReach(spec, route).then(
        (client) => client,
        (error: unknown) => error,
      );
      if (started instanceof Error) {
        expect(started).toBeInstanceOf(SluiceConfigError);
        expect(started.message).toMatch(/GET \/x/);
        return;
      }
      const client = started as TestClient;
      try {
        expect(await statuses(client, 2, '/x')).toEqual([200, 429]);
      } finally {
        await client.close();
      }
    });
  });
}
