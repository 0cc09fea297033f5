/// <reference types="jest" />
import {
  type Decision,
  type HttpLimitOptions,
  Limit,
  LimitOperations,
  MemoryStore,
} from '@sluice/core';
import { EPOCH } from './epoch.js';
import {
  type AdapterHarness,
  type AppSpec,
  withApp as run,
  type TestClient,
} from './http-harness.js';

/**
 * Rows of the shared behaviour table for operator entries (`LimitOperations`):
 * ban / unban, deny, allow and override, obeyed by every middleware on the store and prefix
 * with no option set. Clocks are injected (the limiter's and the operations'), so
 * `Retry-After` and the carried-over GCRA time are exact.
 */
export function describeOperatorRules(harness: AdapterHarness): void {
  const withApp = (spec: AppSpec, fn: (client: TestClient) => Promise<void>) =>
    run(harness, spec, fn);
  const bearer = (user: string) => ({ authorization: `Bearer ${user}` });
  const from = (ip: string) => ({ 'x-forwarded-for': ip });

  /** One route GET /a (`limit`, named 'api'), the store and clock shared with `ops`. */
  function app(limit: Limit, extra: HttpLimitOptions = {}) {
    const store = new MemoryStore();
    const time = { now: EPOCH };
    const ops = new LimitOperations({ store, clock: () => time.now });
    const spec: AppSpec = {
      bearerUser: true,
      trustProxy: true,
      routes: [
        {
          method: 'GET',
          path: '/a',
          limit: limit.named('api'),
          options: { store, clock: () => time.now, ...extra },
        },
      ],
    };
    return { ops, spec, time };
  }
  const limitOf = (body: unknown) => (body as { rateLimit: Decision }).rateLimit;

  describe(`operator entries (${harness.name})`, () => {
    it('ban: a banned user or IP gets 429 with Retry-After = what is left of the ban, uncharged; unban lets the next request through', async () => {
      const { ops, spec, time } = app(Limit.perMinute(3));
      await withApp(spec, async (c) => {
        await ops.ban({ user: 'mallory' }, { for: '90s', reason: 'scraping' });
        await ops.ban({ ip: '203.0.113.7' }, { for: 30_000 });
        const banned = await c.request('GET', '/a', bearer('mallory'));
        expect(banned.status).toBe(429);
        expect(banned.headers['retry-after']).toBe('90');
        expect((banned.body as { message: string }).message).toBe(
          'Rate limit exceeded, retry in 90 seconds',
        );
        time.now += 60_000;
        expect((await c.request('GET', '/a', bearer('mallory'))).headers['retry-after']).toBe('30');
        // an IPv4-mapped address is the same client as its IPv4
        expect((await c.request('GET', '/a', from('::ffff:203.0.113.7'))).status).toBe(200);
        time.now -= 60_000;
        expect((await c.request('GET', '/a', from('::ffff:203.0.113.7'))).status).toBe(429);
        expect((await c.request('GET', '/a', from('203.0.113.8'))).status).toBe(200);
        expect(c.handlerRuns('GET', '/a')).toBe(2);
        await ops.unban({ user: 'mallory' });
        const lifted = await c.request('GET', '/a', bearer('mallory'));
        expect(lifted.status).toBe(200);
        // the ban charged nothing: the whole quota is there
        expect(limitOf(lifted.body).remaining).toBe(2);
      });
    });

    it('deny: a denied CIDR or user gets 403 with the configured body and no Retry-After; others pass', async () => {
      for (const body of ['json', 'problem'] as const) {
        const { ops, spec } = app(Limit.perMinute(3), { body });
        await withApp(spec, async (c) => {
          await ops.deny('198.51.100.0/24');
          await ops.deny('2001:db8:bad::/48');
          await ops.deny({ user: 'eve' });
          for (const headers of [
            from('198.51.100.200'),
            from('::ffff:198.51.100.1'),
            from('2001:db8:bad:1::5'),
            bearer('eve'),
          ]) {
            const r = await c.request('GET', '/a', headers);
            expect(r.status).toBe(403);
            expect(r.headers['retry-after']).toBeUndefined();
            if (body === 'json') {
              expect(r.body).toEqual({
                statusCode: 403,
                error: 'Forbidden',
                message: 'Access denied',
              });
            } else {
              expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
              expect(r.body).toMatchObject({ status: 403, title: 'Forbidden' });
            }
          }
          expect((await c.request('GET', '/a', from('198.51.101.1'))).status).toBe(200);
          expect((await c.request('GET', '/a', from('2001:db8:bae::1'))).status).toBe(200);
          expect(c.handlerRuns('GET', '/a')).toBe(2);
        });
      }
    });

    it("an { ip } entry applies to the request's own group: a /56 ISP's whole /56, a /64 ISP's /64, a /128 client alone (ipv6Subnet per request)", async () => {
      // ISP A hands out /56s, ISP C gives each client one address, everyone else a /64.
      const ipv6Subnet = (req: { ip: string }) =>
        req.ip.startsWith('2001:db8:a:') ? 56 : req.ip.startsWith('2001:db8:c:') ? 128 : 64;
      const { ops, spec } = app(Limit.perMinute(3), { ipv6Subnet });
      await withApp(spec, async (c) => {
        await ops.ban({ ip: '2001:db8:a:1205::5' }, { for: '1m' });
        await ops.ban({ ip: '2001:db8:b:1::5' }, { for: '1m' });
        await ops.ban({ ip: '2001:db8:c:1::5' }, { for: '1m' });
        await ops.override({ ip: '2001:db8:a:3400::1' }, '5/1m', { for: '1h' });
        const status = async (ip: string) => (await c.request('GET', '/a', from(ip))).status;
        // the banned address's /56: another /64 of it too
        expect(await status('2001:db8:a:12ff::9')).toBe(429);
        expect(await status('2001:db8:a:1200::1')).toBe(429);
        expect(await status('2001:db8:a:1300::1')).toBe(200);
        // a /64 request group: the banned address's /64 only, not the rest of its /56
        expect(await status('2001:db8:b:1::abcd')).toBe(429);
        expect(await status('2001:db8:b:2::5')).toBe(200);
        // whole addresses: the banned one alone
        expect(await status('2001:db8:c:1::5')).toBe(429);
        expect(await status('2001:db8:c:1::6')).toBe(200);
        // an override reaches the same group its request is keyed by
        const over = await c.request('GET', '/a', from('2001:db8:a:34ff::2'));
        expect(limitOf(over.body)).toMatchObject({ limit: 5, remaining: 4 });
        expect(c.handlerRuns('GET', '/a')).toBe(4);
      });
    });

    it('allow: an allowed subject passes every limit uncharged, without rate-limit headers; allow beats deny and ban', async () => {
      const { ops, spec } = app(Limit.perMinute(1));
      await withApp(spec, async (c) => {
        await ops.allow('10.0.0.0/8', { for: '1h' });
        await ops.deny('10.1.0.0/16');
        await ops.allow({ user: 'partner' });
        await ops.ban({ user: 'partner' }, { for: '1h' });
        for (let i = 0; i < 4; i++) {
          const r = await c.request('GET', '/a', from('10.1.2.3'));
          expect(r.status).toBe(200);
          expect(r.headers['x-ratelimit-limit']).toBeUndefined();
          expect((await c.request('GET', '/a', bearer('partner'))).status).toBe(200);
        }
        // others are limited as configured
        expect((await c.request('GET', '/a', from('192.0.2.1'))).status).toBe(200);
        expect((await c.request('GET', '/a', from('192.0.2.1'))).status).toBe(429);
      });
    });

    it('override: applies from the next decision on the same key (GCRA keeps its TAT); removing it restores the configured limit', async () => {
      const { ops, spec } = app(Limit.perMinute(2));
      await withApp(spec, async (c) => {
        const first = await c.request('GET', '/a', bearer('acme'));
        expect(limitOf(first.body)).toMatchObject({ limit: 2, remaining: 1 });
        // 30 s of the 60 s tolerance used; at 5/min each request takes 12 s: 2 more fit
        const entry = await ops.override({ user: 'acme' }, '5/1m', { for: '30d' });
        const next = await c.request('GET', '/a', bearer('acme'));
        expect(next.status).toBe(200);
        expect(limitOf(next.body)).toMatchObject({ limit: 5, remaining: 1 });
        expect((await c.request('GET', '/a', bearer('acme'))).status).toBe(200);
        expect((await c.request('GET', '/a', bearer('acme'))).status).toBe(429);
        // a narrowed override of another limit name does not apply; others keep the configured limit
        await ops.override({ user: 'other' }, '100/1m', { for: '1h', name: 'elsewhere' });
        expect((await c.request('GET', '/a', bearer('other'))).status).toBe(200);
        expect((await c.request('GET', '/a', bearer('other'))).status).toBe(200);
        expect((await c.request('GET', '/a', bearer('other'))).status).toBe(429);
        await ops.remove(entry);
        const back = await c.request('GET', '/a', bearer('acme'));
        expect(back.status).toBe(429);
        expect(back.headers['x-ratelimit-limit']).toBe('2');
      });
    });
  });
}
