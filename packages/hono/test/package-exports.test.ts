import { describePackageExports } from '@sluice/test-kit';

// @sluice/hono (with @sluice/fetch and @sluice/core) built with tsup and loaded by name
// through its exports map, with require() and with import(): a Hono app, two requests.
describePackageExports({
  name: 'hono',
  functions: ['rateLimit', 'throttle', 'Limit'],
  probe: `
    const { Hono } = await load('hono');
    const app = new Hono();
    app.get('/users/:id', pkg.throttle('1/min', { ip: () => '203.0.113.7' }), (c) =>
      c.json({ rateLimit: c.get('rateLimit') }),
    );
    const first = await app.request('/users/1');
    const second = await app.request('/users/2');
    return {
      statuses: [first.status, second.status],
      limit: first.headers.get('x-ratelimit-limit'),
      rateLimit: (await first.json()).rateLimit,
    };
  `,
  check(result) {
    expect(result.statuses).toEqual([200, 429]);
    expect(result.limit).toBe('1');
    expect(result.rateLimit).toMatchObject({ allowed: true, remaining: 0 });
  },
});
