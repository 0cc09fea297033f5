import { describePackageExports } from '@sluice/test-kit';

// @sluice/fastify (and the @sluice/core it requires) built with tsup and loaded by name
// through its exports map, with require() and with import(): the built plugin registered
// on a real Fastify app, two requests by inject().
describePackageExports({
  name: 'fastify',
  functions: ['rateLimit', 'Throttle', 'SkipThrottle'],
  probe: `
    const core = await load('@sluice/core');
    const { fastify } = await load('fastify');
    const app = fastify();
    try {
      await app.register(pkg.rateLimit, { limit: '1/min', store: new core.MemoryStore() });
      app.get('/', async (request) => ({ rateLimit: request.rateLimit }));
      const first = await app.inject('/');
      const second = await app.inject('/');
      return {
        statuses: [first.statusCode, second.statusCode],
        limit: first.headers['x-ratelimit-limit'],
        rateLimit: first.json().rateLimit,
      };
    } finally {
      await app.close();
    }
  `,
  check(result) {
    expect(result.statuses).toEqual([200, 429]);
    expect(result.limit).toBe('1');
    expect(result.rateLimit).toMatchObject({ allowed: true, remaining: 0 });
  },
});
