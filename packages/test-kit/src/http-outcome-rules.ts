import { request as httpRequest } from 'node:http';
import { Limit, MemoryStore } from '@sluice/core';
import { EPOCH } from './epoch.js';
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
export async function dropWhileInside(url: string, path: string, gate: Gate, n: number) {
  const req = httpRequest(`${url}${path}`, { method: 'GET', agent: false });
  req.on('error', () => undefined);
  req.end();
  await gate.entered(n);
  req.destroy();
  // The server sees the socket close on a later turn of its event loop.
  await new Promise<void>((resolve) => setTimeout(resolve, 50));
}

/**
 * Rows of the shared behaviour table for DESIGN §9 (issue 14) that count by outcome:
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
              requestWasSuccessful: async (_req, res) =>
                (res as { statusCode?: number; raw?: { statusCode: number } }).statusCode === 201 ||
                (res as { raw?: { statusCode: number } }).raw?.statusCode === 201 ||
                (res as { res?: { statusCode: number } }).res?.statusCode === 201,
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
      const { store, clock } = base();
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
        await dropWhileInside(client.url!, '/slow', gate, 1);
        gate.open();
        const got: number[] = [];
        for (let i = 0; i < 3; i++) got.push((await client.request('GET', '/fast')).status);
        expect(got).toEqual([200, 200, 429]);
      });
    });
  });
}
