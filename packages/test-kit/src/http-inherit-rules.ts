import { type HttpLimitOptions, MemoryStore, type Store } from '@sluice/core';
import { EPOCH } from './epoch.js';
import { type AdapterHarness, type AppSpec, withApp as run } from './http-harness.js';

/**
 * Rows of the shared behaviour table for what a route limit inherits from the application
 * limit in front of it (the core pipeline's rule, written once): `headers`, `body`,
 * `message`, `statusCode`, `store`, `prefix` and `onStoreError`, unless the route gives
 * them itself. One application answers one way, whichever of its limits denied.
 */
export function describeInheritRules(harness: AdapterHarness): void {
  const withApp = (spec: AppSpec, fn: Parameters<typeof run>[2]) => run(harness, spec, fn);
  const clock = () => EPOCH;
  /** An app limit of 100 (with `global`'s options) in front of a route limit of 1. */
  const spec = (global: HttpLimitOptions, options: HttpLimitOptions = {}): AppSpec => ({
    global: { clock, store: new MemoryStore(), limit: 'throttle:100,1', ...global },
    routes: [{ method: 'GET', path: '/r', limit: 'throttle:1,1', options: { clock, ...options } }],
  });

  describe(`a route limit inherits the application limit's answer (${harness.name})`, () => {
    it("inherits headers, body and statusCode: one header style, the app's 429 body", async () => {
      await withApp(
        spec({ headers: 'draft-7', body: 'problem', statusCode: 503 }),
        async (client) => {
          expect((await client.request('GET', '/r')).status).toBe(200);
          const denied = await client.request('GET', '/r');
          expect(denied.status).toBe(503);
          expect(denied.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(denied.headers.ratelimit).toMatch(/remaining=0/);
          expect(denied.headers['x-ratelimit-remaining']).toBeUndefined();
        },
      );
    });

    it("inherits message: the route's 429 says what the app's says", async () => {
      await withApp(spec({ message: 'Slow down' }), async (client) => {
        await client.request('GET', '/r');
        const denied = await client.request('GET', '/r');
        expect(denied.status).toBe(429);
        expect(denied.body).toMatchObject({ message: 'Slow down' });
      });
    });

    it("the route's own options win over the app's", async () => {
      const own = spec(
        { headers: 'draft-7', statusCode: 503 },
        { headers: 'legacy', statusCode: 429 },
      );
      await withApp(own, async (client) => {
        await client.request('GET', '/r');
        const denied = await client.request('GET', '/r');
        expect(denied.status).toBe(429);
        expect(denied.headers['x-ratelimit-remaining']).toBe('0');
      });
    });

    it("inherits store and prefix: the route counts in the app's store, under its prefix", async () => {
      const store = new MemoryStore();
      const on = (prefix: string) => spec({ store, prefix });
      // Two apps on one store and prefix share the route's count; another prefix does not.
      await withApp(on('one'), async (client) => {
        expect((await client.request('GET', '/r')).status).toBe(200);
      });
      await withApp(on('one'), async (client) => {
        expect((await client.request('GET', '/r')).status).toBe(429);
      });
      await withApp(on('two'), async (client) => {
        expect((await client.request('GET', '/r')).status).toBe(200);
      });
    });

    it("inherits onStoreError (with the store): the app's 'deny' answers a failing store's request", async () => {
      // A store whose every call fails (as a Redis that is down): the app says deny, the
      // default ('insurance') would let a first request through. The app limit skips the
      // request (it still is the one in front), so the answer is the route limit's.
      const down: Store = {
        consume: () => Promise.reject(new Error('store down')),
        reset: () => undefined,
      };
      const quiet = { warn: () => undefined };
      const app = spec(
        { store: down, onStoreError: 'deny', logger: quiet, skip: () => true },
        // Its own skip (where a framework hands the route every registration option).
        { logger: quiet, skip: () => false },
      );
      await withApp(app, async (client) => {
        expect((await client.request('GET', '/r')).status).toBe(429);
      });
    });
  });
}
