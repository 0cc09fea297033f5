import { Limit } from '@sluice/core';
import { Gate } from './gate.js';
import {
  type AdapterHarness,
  type AppSpec,
  withApp as run,
  type TestClient,
} from './http-harness.js';
import { afterFinish } from './http-outcome-rules.js';

/**
 * Rows of the shared behaviour table for `Limit.adaptive` (per-process adaptive
 * concurrency): a full limit answers 503 with `Retry-After`, a slot is released when the
 * response ends, sheddable requests are shed first. Each runs on every adapter.
 */
export function describeAdaptiveRules(harness: AdapterHarness): void {
  const withApp = (spec: AppSpec, fn: (client: TestClient) => Promise<void>) =>
    run(harness, spec, fn);

  describe(`adaptive concurrency: Limit.adaptive (${harness.name})`, () => {
    it('adaptive({ min: 2, max: 2 }): 3 slow requests at once → 2 served, 1 × 503 + Retry-After; released when a response ends', async () => {
      const gate = new Gate();
      const limit = Limit.adaptive({ min: 2, max: 2, loopDelay: false });
      const spec: AppSpec = {
        routes: [
          {
            method: 'GET',
            path: '/work',
            limit,
            options: { headers: ['legacy', 'draft-8'] },
            gate,
          },
        ],
      };
      await withApp(spec, async (client) => {
        const first = [client.request('GET', '/work'), client.request('GET', '/work')];
        await gate.entered(2);
        const third = await client.request('GET', '/work');
        expect(third.status).toBe(503);
        expect(third.headers['retry-after']).toBe('1');
        expect(third.headers['ratelimit-policy']).toBe('"adaptive";q=2;qu="concurrent-requests"');
        expect(third.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
        expect(limit.adaptive!.controller.inFlight).toBe(2);
        gate.open(1);
        expect((await Promise.race(first)).status).toBe(200);
        await afterFinish();
        expect(limit.adaptive!.controller.inFlight).toBe(1);
        const fourth = client.request('GET', '/work');
        await gate.entered(3);
        gate.open();
        expect((await Promise.all([...first, fourth])).map((r) => r.status)).toEqual([
          200, 200, 200,
        ]);
        await afterFinish();
        expect(limit.adaptive!.controller.inFlight).toBe(0);
        expect(client.handlerRuns('GET', '/work')).toBe(3);
      });
    });

    it('priority: with 3 of 4 slots held, a sheddable request gets 503 and a critical one is served', async () => {
      const gate = new Gate();
      // The framework's request: `url` is the path on Express, Fastify, Koa (ctx.url) and
      // NestJS, an absolute URL on a fetch `Request`; Hono's `c` has `c.req.path`.
      const urlOf = (req: unknown) => {
        const r = req as { url?: unknown; req?: { path?: unknown } };
        if (typeof r.url === 'string')
          return r.url.startsWith('/') ? r.url : new URL(r.url).pathname;
        return String(r.req?.path ?? '');
      };
      const limit = Limit.adaptive({
        min: 4,
        max: 4,
        loopDelay: false,
        priority: (req) =>
          urlOf(req).startsWith('/bulk')
            ? 'sheddable'
            : urlOf(req).startsWith('/pay')
              ? 'critical'
              : 'default',
      });
      const route = (path: string) => ({ method: 'GET' as const, path, limit, options: {}, gate });
      const spec: AppSpec = { routes: [route('/work'), route('/bulk'), route('/pay')] };
      await withApp(spec, async (client) => {
        const held = [1, 2, 3].map(() => client.request('GET', '/work'));
        await gate.entered(3);
        // default's share is floor(0.9 × 4) = 3: full for default and sheddable.
        expect((await client.request('GET', '/work')).status).toBe(503);
        expect((await client.request('GET', '/bulk')).status).toBe(503);
        const pay = client.request('GET', '/pay');
        await gate.entered(4);
        gate.open();
        expect((await pay).status).toBe(200);
        expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200, 200]);
      });
    });
  });
}
