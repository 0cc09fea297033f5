import { gcra, Limit, MemoryStore, SluiceConfigError, ThrottleRegistry } from '@sluice/core';
import { EPOCH } from './epoch.js';
import {
  type AdapterHarness,
  type AppSpec,
  withApp as run,
  statuses,
  type TestClient,
} from './http-harness.js';

/**
 * Rows of the shared behaviour table for mistakes that used to pass in silence: a limit
 * that can never admit a request, `costAfter` on an algorithm that cannot settle it, an
 * async resolver that never settles, an algorithm changed on live keys. Each is a start-up
 * error naming the option or a stated answer, the same on every framework.
 */
export function describeSilentFailureRules(harness: AdapterHarness): void {
  const base = () => {
    const time = { now: EPOCH };
    return { store: new MemoryStore(), clock: () => time.now };
  };
  const withApp = (spec: AppSpec, fn: (client: TestClient) => Promise<void>) =>
    run(harness, spec, fn);
  const startError = async (spec: AppSpec): Promise<SluiceConfigError> => {
    let client: TestClient | undefined;
    try {
      client = await harness.start(spec);
    } catch (error) {
      return error as SluiceConfigError;
    }
    await client.close();
    throw new Error('the app started: the mistake was not found at start-up');
  };

  describe(`no silent failure (${harness.name})`, () => {
    // A plain loop, not it.each: the table also runs under the runtimes' small test runner.
    for (const algorithm of ['sliding-window', 'sliding-log'] as const) {
      it(`costAfter on ${algorithm} (the algorithm option) is a start-up error naming costAfter and the algorithm, with or without a store`, async () => {
        const limit = Limit.perMinute(100).costAfter(() => 5);
        for (const options of [{ store: new MemoryStore() }, {}]) {
          const error = await startError({
            global: { ...options, limit, algorithm },
            routes: [{ method: 'GET', path: '/a' }],
          });
          expect(error).toBeInstanceOf(SluiceConfigError);
          expect(error.option).toBe('costAfter');
          expect(error.message).toContain(algorithm);
          expect(error.message).toMatch(/gcra \(the default/);
        }
      });
    }

    it('a static cost or upfront charge above the quota is a start-up error naming cost / upfront; one that fits the burst is taken', async () => {
      const cost = await startError({
        global: { limit: Limit.perMinute(5).cost(6) },
        routes: [{ method: 'GET', path: '/a' }],
      });
      expect([cost.option, cost instanceof SluiceConfigError]).toEqual(['cost', true]);
      expect(cost.message).toContain('at most 5');
      const upfront = await startError({
        global: { limit: Limit.perMinute(5).costAfter(() => 1, { upfront: 9 }) },
        routes: [{ method: 'GET', path: '/a' }],
      });
      expect(upfront.option).toBe('upfront');
      // The capacity is the algorithm's: a burst of 10 admits a cost of 6.
      const spec: AppSpec = {
        global: {
          ...base(),
          limit: Limit.perMinute(5).cost(6),
          algorithm: ({ limit, periodMs }) => gcra({ rate: limit, period: periodMs, burst: 10 }),
        },
        routes: [{ method: 'GET', path: '/a' }],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 2, '/a')).toEqual([200, 429]);
      });
    });

    it('a request whose cost is above the quota (from a named limiter) gets 429 without Retry-After, what is really left, and a message that says retrying will not help', async () => {
      const throttles = new ThrottleRegistry().define('upload', (req) =>
        Limit.perMinute(5).cost(Number(req.headers['x-size'] ?? 1)),
      );
      const spec: AppSpec = {
        global: { ...base(), limit: 'throttle:upload', throttles },
        routes: [{ method: 'GET', path: '/a' }],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 1, '/a', { 'x-size': '2' })).toEqual([200]);
        const never = await client.request('GET', '/a', { 'x-size': '6' });
        expect(never.status).toBe(429);
        expect(never.headers['retry-after']).toBeUndefined();
        expect(never.headers['x-ratelimit-remaining']).toBe('3');
        expect((never.body as { message: string }).message).toContain('retrying will not help');
        expect(client.handlerRuns('GET', '/a')).toBe(1);
        // An ordinary denial still says when to come back.
        const spent = await client.request('GET', '/a', { 'x-size': '4' });
        expect([spent.status, spent.headers['retry-after']]).toEqual([429, '12']);
      });
    });

    it('an async resolver that never settles answers 500 after resolverTimeout, with one log line for the outage', async () => {
      const seen: string[] = [];
      const logger = { warn: (message: string) => void seen.push(message) };
      const spec: AppSpec = {
        global: {
          ...base(),
          limit: 'throttle:50,1',
          key: () => new Promise<string>(() => undefined),
          resolverTimeout: 30,
          logger,
        },
        routes: [{ method: 'GET', path: '/a' }],
      };
      await withApp(spec, async (client) => {
        expect(await statuses(client, 3, '/a')).toEqual([500, 500, 500]);
        expect(client.handlerRuns('GET', '/a')).toBe(0);
      });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toContain('key resolver did not settle within 30 ms');
    });

    it('a limit moved to another algorithm on the same store starts on fresh keys (never reads the old state as its own)', async () => {
      const store = new MemoryStore();
      const spec = (algorithm?: 'fixed-window' | 'sliding-log'): AppSpec => ({
        global: { store, limit: 'throttle:10,1', ...(algorithm ? { algorithm } : {}) },
        routes: [{ method: 'GET', path: '/a' }],
      });
      const ten = new Array(10).fill(200);
      // GCRA (the default), spent; then a sliding log: on the old key it read the TAT as its log.
      await withApp(spec(), async (client) => {
        expect(await statuses(client, 11, '/a')).toEqual([...ten, 429]);
      });
      await withApp(spec('sliding-log'), async (client) => {
        expect(await statuses(client, 11, '/a')).toEqual([...ten, 429]);
      });
      // A fixed window, then GCRA again: GCRA's own key, still spent, is not the window's.
      await withApp(spec('fixed-window'), async (client) => {
        expect(await statuses(client, 10, '/a')).toEqual(ten);
      });
      await withApp(spec(), async (client) => {
        expect(await statuses(client, 1, '/a')).toEqual([429]);
      });
    });
  });
}
