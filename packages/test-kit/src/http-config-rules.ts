import { Limit, MemoryStore, ThrottleRegistry } from '@sluice/core';
import { EPOCH } from './epoch.js';
import {
  type AdapterHarness,
  type AppSpec,
  withApp as run,
  type TestClient,
} from './http-harness.js';

/**
 * Rows of the shared behaviour table for configuration mistakes a request can reveal and
 * for the keys of `Limit.by()` subjects: what each framework does must be the same, and
 * nothing is silently keyed by the wrong subject.
 */
export function describeConfigRules(harness: AdapterHarness): void {
  const base = () => {
    const time = { now: EPOCH };
    return { store: new MemoryStore(), clock: () => time.now };
  };
  const withApp = (spec: AppSpec, fn: (client: TestClient) => Promise<void>) =>
    run(harness, spec, fn);
  const from = (ip: string, more: Record<string, string> = {}) => ({
    'x-forwarded-for': ip,
    ...more,
  });

  /** A logger that keeps the warnings. */
  const warnings = () => {
    const seen: string[] = [];
    return { seen, logger: { warn: (message: string) => void seen.push(message) } };
  };

  describe(`configuration rules (${harness.name})`, () => {
    it('warns once when a request has X-Forwarded-For and the framework trusts no proxy', async () => {
      const { seen, logger } = warnings();
      const spec: AppSpec = {
        global: { ...base(), limit: 'throttle:50,1', logger },
        routes: [{ method: 'GET', path: '/a' }],
      };
      await withApp(spec, async (client) => {
        await client.request('GET', '/a');
        expect(seen).toEqual([]);
        await client.request('GET', '/a', from('203.0.113.7'));
        await client.request('GET', '/a', from('203.0.113.8'));
      });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toContain('SLUICE_UNEXPECTED_X_FORWARDED_FOR');
      expect(seen[0]).toContain('validate: { xForwardedFor: false }');
      // In the adapter's own words (its binding's proxySetting), not the generic ones.
      expect(seen[0]).not.toContain("the framework's proxy setting");
    });

    it('warns once when the framework trusts every proxy hop (a client picks its IP)', async () => {
      const { seen, logger } = warnings();
      const spec: AppSpec = {
        global: { ...base(), limit: 'throttle:50,1', logger },
        routes: [{ method: 'GET', path: '/a' }],
        trustProxy: 'all',
      };
      await withApp(spec, async (client) => {
        await client.request('GET', '/a', from('203.0.113.7'));
        await client.request('GET', '/a');
      });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toContain('SLUICE_PERMISSIVE_TRUST_PROXY');
      expect(seen[0]).not.toContain("the framework's proxy setting");
    });

    it('no proxy warning for a trusted proxy, or with validate: false / per check', async () => {
      for (const [trustProxy, validate] of [
        [true, undefined],
        [false, false],
        ['all', false],
        [false, { xForwardedFor: false }],
        ['all', { trustProxy: false }],
      ] as const) {
        const { seen, logger } = warnings();
        const spec: AppSpec = {
          global: { ...base(), limit: 'throttle:50,1', logger, validate },
          routes: [{ method: 'GET', path: '/a' }],
          trustProxy,
        };
        await withApp(spec, async (client) => {
          await client.request('GET', '/a', from('203.0.113.7'));
        });
        expect([trustProxy, validate, seen]).toEqual([trustProxy, validate, []]);
      }
    });

    it('the .by() limits of one named limiter never share a key: an email equal to an IP spends nothing of that IP', async () => {
      const throttles = new ThrottleRegistry().define('login', (req) => {
        const email = req.headers['x-email'];
        return [
          Limit.perMinute(2).by(req.ip),
          Limit.perMinute(2).by(typeof email === 'string' ? email : 'anonymous'),
        ];
      });
      const spec: AppSpec = {
        global: { ...base(), limit: 'throttle:login', throttles },
        routes: [{ method: 'GET', path: '/login' }],
        trustProxy: true,
      };
      await withApp(spec, async (client) => {
        // The attacker, from other addresses, sends the victim's IP as its email.
        for (const ip of ['10.0.0.2', '10.0.0.3', '10.0.0.4']) {
          await client.request('GET', '/login', from(ip, { 'x-email': '10.0.0.1' }));
        }
        // The victim's IP bucket is untouched: two requests pass.
        const victim = from('10.0.0.1', { 'x-email': 'victim@example.com' });
        expect((await client.request('GET', '/login', victim)).status).toBe(200);
        expect((await client.request('GET', '/login', victim)).status).toBe(200);
        expect((await client.request('GET', '/login', victim)).status).toBe(429);
      });
    });

    it('a trusted forwarded hop that is not an IP address answers 500 (no bucket of its text); an address is limited', async () => {
      const spec: AppSpec = {
        global: { ...base(), limit: 'throttle:1,1' },
        routes: [{ method: 'GET', path: '/a' }],
        trustProxy: true,
      };
      await withApp(spec, async (client) => {
        for (const hop of ['not-an-ip', '999.1.1.1', '01.2.3.4', '9'.repeat(5000), '1:2:3']) {
          // twice: nothing was charged under the text
          for (const _ of [1, 2]) {
            const status = (await client.request('GET', '/a', from(hop))).status;
            expect([hop.slice(0, 12), status]).toEqual([hop.slice(0, 12), 500]);
          }
        }
        expect(client.handlerRuns('GET', '/a')).toBe(0);
        expect((await client.request('GET', '/a', from('203.0.113.7'))).status).toBe(200);
        expect((await client.request('GET', '/a', from('203.0.113.7'))).status).toBe(429);
        expect((await client.request('GET', '/a', from('2001:db8::7'))).status).toBe(200);
      });
    });

    it('a user option returning an object answers 500 through the framework (never keys by IP); null means no user', async () => {
      const wrong: AppSpec = {
        global: { ...base(), limit: 'throttle:5,1', user: () => ({ id: 7 }) },
        routes: [{ method: 'GET', path: '/a' }],
      };
      await withApp(wrong, async (client) => {
        expect((await client.request('GET', '/a')).status).toBe(500);
        expect((await client.request('GET', '/a')).status).toBe(500);
        expect(client.handlerRuns('GET', '/a')).toBe(0);
      });
      const none: AppSpec = {
        global: { ...base(), limit: 'throttle:1,1', user: () => null },
        routes: [{ method: 'GET', path: '/a' }],
        trustProxy: true,
      };
      await withApp(none, async (client) => {
        expect((await client.request('GET', '/a', from('10.0.0.1'))).status).toBe(200);
        expect((await client.request('GET', '/a', from('10.0.0.2'))).status).toBe(200);
        expect((await client.request('GET', '/a', from('10.0.0.1'))).status).toBe(429);
      });
    });

    it('an ipv6Subnet function groups IPv6 clients by its answer, asked once per request; a bad answer is a 500', async () => {
      // Same /56 (2001:db8:1:100::/56), different /64s.
      const [a, b] = ['2001:db8:1:100::1', '2001:db8:1:1ff::1'];
      const calls: string[] = [];
      const spec = (answer: number): AppSpec => ({
        global: {
          ...base(),
          limit: ['throttle:1,1', 'throttle:5,1'],
          ipv6Subnet: (req) => {
            calls.push(req.ip);
            return req.ip.startsWith('2001:db8:1:') ? answer : 64;
          },
        },
        routes: [{ method: 'GET', path: '/a' }],
        trustProxy: true,
      });
      const statuses = async (answer: number) => {
        const out: number[] = [];
        await withApp(spec(answer), async (client) => {
          out.push((await client.request('GET', '/a', from(a))).status);
          out.push((await client.request('GET', '/a', from(b))).status);
        });
        return out;
      };
      expect(await statuses(56)).toEqual([200, 429]);
      // Two limits, one answer per request.
      expect(calls).toEqual([a, b]);
      expect(await statuses(64)).toEqual([200, 200]);
      for (const bad of [0, 129, 56.5, Number.NaN]) {
        await withApp(spec(bad), async (client) => {
          expect((await client.request('GET', '/a', from(a))).status).toBe(500);
          expect(client.handlerRuns('GET', '/a')).toBe(0);
          // A client the function answers 64 for is limited as usual.
          expect((await client.request('GET', '/a', from('2001:db8:2::1'))).status).toBe(200);
        });
      }
    });
  });
}
