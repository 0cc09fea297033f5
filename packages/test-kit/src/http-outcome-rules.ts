import { request as httpRequest } from 'node:http';
import { concurrency, Limit, MemoryStore } from '@sluice/core';
import { CallCountingStore } from './call-counting-store.js';
import { EPOCH } from './epoch.js';
import { responseStatus } from './framework-shapes.js';
import { Gate } from './gate.js';
import {
  type AdapterHarness,
  type AppSpec,
  withApp as run,
  type TestClient,
} from './http-harness.js';

/** Lets the server's event loop run the work a finished response leaves (its settle). */
export const afterFinish = () => new Promise<void>((resolve) => setTimeout(resolve, 2));

/**
 * Opens a request to `url + path` and drops its connection once `gate` has `n` requests
 * inside (the handler is holding it): a client that goes away before the response.
 */
export async function dropWhileInside(
  url: string,
  path: string,
  gate: Gate,
  n: number,
  store: CallCountingStore,
) {
  const req = httpRequest(`${url}${path}`, { method: 'GET', agent: false });
  req.on('error', () => undefined);
  req.end();
  await gate.entered(n);
  req.destroy();
  // The server sees the socket close on a later turn of its event loop, then gives back.
  await store.until('refund', 1);
}

/**
 * Rows of the shared behaviour table for that count by outcome:
 * `skipSuccessfulRequests`, `skipFailedRequests`, `requestWasSuccessful`, a connection
 * closed early. Each runs on Express, Fastify and Koa alike.
 */
export function describeOutcomeRules(harness: AdapterHarness): void {
  const base = () => {
    const time = { now: EPOCH };
    return { store: new MemoryStore(), clock: () => time.now, time };
  };
  const withApp = (spec: AppSpec, fn: (client: TestClient) => Promise<void>) =>
    run(harness, spec, fn);
  /** Statuses of `n` requests answered with `status` by the handler. */
  const answered = async (client: TestClient, n: number, path: string, status: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      out.push((await client.request('POST', path, { 'x-status': String(status) })).status);
      await afterFinish();
    }
    return out;
  };

  describe(`outcome-aware counting (${harness.name})`, () => {
    it('skipSuccessfulRequests: 5 failed logins then 429, successful logins never count', async () => {
      const { store, clock } = base();
      const spec: AppSpec = {
        routes: [
          {
            method: 'POST',
            path: '/login',
            limit: 'throttle:5,1',
            options: { store, clock, skipSuccessfulRequests: true },
          },
        ],
      };
      await withApp(spec, async (client) => {
        expect(await answered(client, 8, '/login', 200)).toEqual(Array(8).fill(200));
        expect(await answered(client, 5, '/login', 401)).toEqual(Array(5).fill(401));
        expect(await answered(client, 1, '/login', 200)).toEqual([429]);
        expect(client.handlerRuns('POST', '/login')).toBe(13);
      });
    });

    it('skipFailedRequests: failed requests never count, successful ones do', async () => {
      const { store, clock } = base();
      const spec: AppSpec = {
        routes: [
          {
            method: 'POST',
            path: '/r',
            limit: 'throttle:3,1',
            options: { store, clock, skipFailedRequests: true },
          },
        ],
      };
      await withApp(spec, async (client) => {
        expect(await answered(client, 6, '/r', 500)).toEqual(Array(6).fill(500));
        expect(await answered(client, 4, '/r', 200)).toEqual([200, 200, 200, 429]);
      });
    });

    it('requestWasSuccessful decides what success is', async () => {
      const { store, clock } = base();
      const spec: AppSpec = {
        routes: [
          {
            method: 'POST',
            path: '/r',
            limit: 'throttle:2,1',
            // 201 is the only success: it is given back; 200 counts.
            options: {
              store,
              clock,
              skipSuccessfulRequests: true,
              requestWasSuccessful: async (_req, res) => responseStatus(res) === 201,
            },
          },
        ],
      };
      await withApp(spec, async (client) => {
        expect(await answered(client, 5, '/r', 201)).toEqual(Array(5).fill(201));
        expect(await answered(client, 3, '/r', 200)).toEqual([200, 200, 429]);
      });
    });

    it('a connection closed before the response ended counts as failed', async () => {
      const { clock } = base();
      const store = new CallCountingStore();
      const gate = new Gate();
      const limit = Limit.perMinute(2).by('client').named('abort');
      const options = { store, clock, skipFailedRequests: true };
      const spec: AppSpec = {
        listen: true,
        routes: [
          { method: 'GET', path: '/slow', limit, options, gate },
          { method: 'GET', path: '/fast', limit, options },
        ],
      };
      await withApp(spec, async (client) => {
        await dropWhileInside(client.url!, '/slow', gate, 1, store);
        gate.open();
        const got: number[] = [];
        for (let i = 0; i < 3; i++) got.push((await client.request('GET', '/fast')).status);
        expect(got).toEqual([200, 200, 429]);
      });
    });
  });

  describe(`penalties: Limit.blockFor (${harness.name})`, () => {
    it('a denial blocks for the block time, and the block doubles on the second offence', async () => {
      const { store, clock, time } = base();
      const limit = Limit.perMinute(5).blockFor('15m', { backoff: 2, maxBlock: '24h' });
      const spec: AppSpec = {
        routes: [{ method: 'POST', path: '/login', limit, options: { store, clock } }],
      };
      await withApp(spec, async (client) => {
        const retry = async () => {
          const r = await client.request('POST', '/login');
          return r.status === 429 ? Number(r.headers['retry-after']) : r.status;
        };
        const five = async () => {
          for (let i = 0; i < 5; i++) expect(await retry()).toBe(200);
        };
        await five();
        expect(await retry()).toBe(900); // blocked 15 min
        time.now += 60_000; // the minute's quota is back, the block is not
        expect(await retry()).toBe(840);
        time.now = EPOCH + 900_000; // the block is over; still watched
        await five();
        expect(await retry()).toBe(1800); // second offence: 30 min
        expect(client.handlerRuns('POST', '/login')).toBe(10);
      });
    });
  });

  describe(`concurrency limits: Limit.concurrent (${harness.name})`, () => {
    it('concurrent(2): 3 slow requests at once → 2 served, 1 × 429; a fourth served once one finishes', async () => {
      const { store, clock } = base();
      const gate = new Gate();
      const spec: AppSpec = {
        routes: [
          {
            method: 'GET',
            path: '/export',
            limit: Limit.concurrent(2).named('export'),
            options: { store, clock, headers: ['legacy', 'draft-8'] },
            gate,
          },
        ],
      };
      await withApp(spec, async (client) => {
        const first = [client.request('GET', '/export'), client.request('GET', '/export')];
        await gate.entered(2);
        const third = await client.request('GET', '/export');
        expect(third.status).toBe(429);
        expect(third.headers['retry-after']).toBe('1');
        expect(third.headers['ratelimit-policy']).toBe('"export";q=2;qu="concurrent-requests"');
        gate.open(1);
        const done = await Promise.race(first);
        expect(done.status).toBe(200);
        await afterFinish();
        const fourth = client.request('GET', '/export');
        await gate.entered(3);
        gate.open();
        expect((await Promise.all([...first, fourth])).map((r) => r.status)).toEqual([
          200, 200, 200,
        ]);
        expect(client.handlerRuns('GET', '/export')).toBe(3);
      });
    });

    it('the lease of a request whose client disconnects is released', async () => {
      const { clock } = base();
      const store = new CallCountingStore();
      const gate = new Gate();
      const spec: AppSpec = {
        listen: true,
        routes: [
          {
            method: 'GET',
            path: '/slow',
            limit: Limit.concurrent(1),
            options: { store, clock },
            gate,
          },
        ],
      };
      await withApp(spec, async (client) => {
        await dropWhileInside(client.url!, '/slow', gate, 1, store);
        const next = client.request('GET', '/slow');
        await gate.entered(2); // admitted: the dropped request's lease is gone
        gate.open();
        expect((await next).status).toBe(200);
      });
    });

    it('the lease of a killed process expires after leaseMs', async () => {
      const { store, clock, time } = base();
      const limit = Limit.concurrent(1, { leaseMs: 5000 }).by('shared').named('export');
      // Another process took the lease, then died without releasing it.
      store.consume('sl:export:shared', concurrency({ limit: 1, leaseMs: 5000 }), 1, time.now);
      const spec: AppSpec = {
        routes: [{ method: 'GET', path: '/export', limit, options: { store, clock } }],
      };
      await withApp(spec, async (client) => {
        expect((await client.request('GET', '/export')).status).toBe(429);
        time.now += 4999;
        expect((await client.request('GET', '/export')).status).toBe(429);
        time.now += 1;
        expect((await client.request('GET', '/export')).status).toBe(200);
      });
    });
  });
}
