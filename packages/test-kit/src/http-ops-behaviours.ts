/// <reference types="jest" />
import {
  type Decision,
  type HttpLimitOptions,
  Limit,
  type LimitedInfo,
  MemoryStore,
} from '@sluice/core';
import { QUOTA_EXCEEDED_TITLE, QUOTA_EXCEEDED_TYPE } from '@sluice/core/http';
import { EPOCH } from './epoch.js';
import {
  type AdapterHarness,
  type AppSpec,
  withApp as run,
  type TestClient,
} from './http-harness.js';
import { type CapturedMetrics, otelCapture } from './otel-capture.js';

/**
 * The shared table of the operations features, run by each
 * adapter's test with its harness: OpenTelemetry metrics read with the SDK's in-memory
 * exporter, shadow mode against an enforcing run on the same traffic, and the draft-11
 * headers and problem details body.
 */

/** The user ids and addresses of the scripted run: none may appear in any attribute. */
const ALICE = 'alice-7f3a';
const BOB = 'bob-91c2';
const KEY_TEXT = [ALICE, BOB, 'alice', 'bob', '127.0.0.1', '::1', 'ip:', 'user:', 'sluice:', 'GET'];

const bearer = (user: string) => ({ authorization: `Bearer ${user}` });

/** Two per-route limits (the same on every adapter), each with `extra` options. */
function scriptedApp(extra: HttpLimitOptions): AppSpec {
  const store = new MemoryStore();
  const clock = () => EPOCH;
  return {
    bearerUser: true,
    routes: [
      {
        method: 'GET',
        path: '/a',
        limit: Limit.perMinute(3).named('api'),
        options: { store, clock, ...extra },
      },
      {
        method: 'POST',
        path: '/login',
        limit: Limit.perMinute(1).named('login'),
        options: { store, clock, ...extra },
      },
    ],
  };
}

/** The scripted traffic: alice 5 × GET /a, anonymous 4 × GET /a, bob 2 × POST /login. */
async function script(client: TestClient): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 5; i++) out.push((await client.request('GET', '/a', bearer(ALICE))).status);
  for (let i = 0; i < 4; i++) out.push((await client.request('GET', '/a')).status);
  for (let i = 0; i < 2; i++)
    out.push((await client.request('POST', '/login', bearer(BOB))).status);
  return out;
}

function expectNoKeyText(m: CapturedMetrics): void {
  expect(m.attributes.length).toBeGreaterThan(0);
  for (const attribute of m.attributes) {
    for (const text of KEY_TEXT) expect(attribute).not.toContain(text);
  }
  const names = new Set(m.attributes.map((a) => a.split('=')[0]));
  // sluice.rank: the most-denied subjects' counts by rank (sluice.denials.top), never their
  // ids; a limiter on a store without operator entries (a DurableObjectStore) has no top.
  const hasTop = names.has('sluice.rank');
  expect([...names].sort()).toEqual(
    hasTop ? ['sluice.limit', 'sluice.rank', 'sluice.result'] : ['sluice.limit', 'sluice.result'],
  );
  if (hasTop) expect(m.units['sluice.denials.top']).toBe('{request}');
  for (const a of m.attributes.filter((x) => x.startsWith('sluice.rank='))) {
    expect(a).toMatch(/^sluice\.rank=(?:[1-9]|10)$/);
  }
}

/** Registers the operations table (jest `describe` blocks) for one adapter. */
export function describeOpsBehaviours(harness: AdapterHarness): void {
  const withApp = (spec: AppSpec, fn: (client: TestClient) => Promise<void>) =>
    run(harness, spec, fn);

  describe(`operations: metrics, shadow mode, draft-11 (${harness.name})`, () => {
    it('metrics: sluice.requests by limit and result, sluice.store.duration in s, no key text in any attribute', async () => {
      const otel = otelCapture();
      try {
        await withApp(
          scriptedApp({ metrics: { meterProvider: otel.meterProvider } }),
          async (c) => {
            expect(await script(c)).toEqual([
              200, 200, 200, 429, 429, 200, 200, 200, 429, 200, 429,
            ]);
          },
        );
        const m = await otel.read();
        expect(m.requests).toEqual({
          'api|allowed': 6,
          'api|limited': 3,
          'login|allowed': 1,
          'login|limited': 1,
        });
        expect(m.storeDurations.count).toBe(11);
        expect(m.storeDurations.unit).toBe('s');
        expect(m.storeDurations.sum).toBeGreaterThanOrEqual(0);
        expect(m.storeDurations.sum).toBeLessThan(1);
        expect(m.units['sluice.requests']).toBe('{request}');
        expectNoKeyText(m);
      } finally {
        await otel.shutdown();
      }
    });

    it("mode 'shadow': every request passes, headers and onLimited({ shadow: true }) report the denials, counts match the enforcing run", async () => {
      const enforce = otelCapture();
      const shadow = otelCapture();
      const infos: [Decision, LimitedInfo][] = [];
      try {
        let enforced: number[] = [];
        await withApp(
          scriptedApp({ metrics: { meterProvider: enforce.meterProvider } }),
          async (c) => {
            enforced = await script(c);
          },
        );
        await withApp(
          scriptedApp({
            mode: 'shadow',
            metrics: { meterProvider: shadow.meterProvider },
            onLimited: (_req, d, info) => infos.push([d, info]),
          }),
          async (c) => {
            expect(await script(c)).toEqual(Array(11).fill(200));
            expect(c.handlerRuns('GET', '/a')).toBe(9);
            expect(c.handlerRuns('POST', '/login')).toBe(2);
            // a shadowed request: the headers and req.rateLimit report the denial, no Retry-After
            const r = await c.request('GET', '/a', bearer(ALICE));
            expect(r.status).toBe(200);
            expect(r.headers['x-ratelimit-limit']).toBe('3');
            expect(r.headers['x-ratelimit-remaining']).toBe('0');
            expect(r.headers['retry-after']).toBeUndefined();
            expect((r.body as { rateLimit: Decision }).rateLimit).toMatchObject({
              allowed: false,
              remaining: 0,
              retryAfterMs: 20_000,
            });
          },
        );
        const denied = enforced.filter((s) => s === 429).length;
        expect(infos).toHaveLength(denied + 1);
        expect(infos.every(([d, info]) => !d.allowed && info.shadow === true)).toBe(true);
        const e = await enforce.read();
        const s = await shadow.read();
        // the same decisions: each 'limited' of the enforcing run is a 'shadow_limited' here
        const asShadow = Object.fromEntries(
          Object.entries(e.requests).map(([k, v]) => [k.replace('|limited', '|shadow_limited'), v]),
        );
        asShadow['api|shadow_limited']! += 1; // the extra request above
        expect(s.requests).toEqual(asShadow);
        expectNoKeyText(s);
      } finally {
        await enforce.shutdown();
        await shadow.shutdown();
      }
    });

    it("headers 'draft-11' and body 'problem': RateLimit-Policy / RateLimit and the quota-exceeded problem, field by field", async () => {
      const store = new MemoryStore();
      await withApp(
        {
          routes: [
            {
              method: 'GET',
              path: '/p',
              limit: [Limit.perMinute(2).named('burst'), Limit.perHour(100).named('hourly')],
              options: { store, clock: () => EPOCH, headers: 'draft-11', body: 'problem' },
            },
          ],
        },
        async (c) => {
          const ok = await c.request('GET', '/p');
          expect(ok.status).toBe(200);
          expect(ok.headers['ratelimit-policy']).toBe('"burst";q=2;w=60, "hourly";q=100;w=3600');
          expect(ok.headers.ratelimit).toBe('"burst";r=1;t=30, "hourly";r=99;t=36');
          await c.request('GET', '/p');
          const denied = await c.request('GET', '/p');
          expect(denied.status).toBe(429);
          expect(denied.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(denied.headers['retry-after']).toBe('30');
          expect(denied.headers['ratelimit-policy']).toBe(
            '"burst";q=2;w=60, "hourly";q=100;w=3600',
          );
          expect(denied.headers.ratelimit).toBe('"burst";r=0;t=60, "hourly";r=98;t=72');
          const body = denied.body as Record<string, unknown>;
          expect(Object.keys(body)).toEqual([
            'type',
            'title',
            'status',
            'detail',
            'violated-policies',
          ]);
          expect(body.type).toBe('https://iana.org/assignments/http-problem-types#quota-exceeded');
          expect(body.type).toBe(QUOTA_EXCEEDED_TYPE);
          expect(body.title).toBe(
            'Request cannot be satisfied as assigned quota has been exceeded',
          );
          expect(body.title).toBe(QUOTA_EXCEEDED_TITLE);
          expect(body.status).toBe(429);
          expect(body.detail).toBe('Rate limit exceeded, retry in 30 seconds');
          expect(body['violated-policies']).toEqual(['burst']);
          expect(c.handlerRuns('GET', '/p')).toBe(2);
        },
      );
    });
  });
}
