import { describePackageExports } from '@sluice/test-kit';

// @sluice/koa (and the @sluice/core it requires) built with tsup and loaded by name
// through its exports map, with require() and with import(): the built middleware on a
// real Koa app, two requests over HTTP.
describePackageExports({
  name: 'koa',
  functions: ['rateLimit', 'throttle', 'Throttle', 'SkipThrottle', 'Limit'],
  probe: `
    const core = await load('@sluice/core');
    const koa = await load('koa');
    const Koa = koa.default ?? koa;
    const app = new Koa();
    app.use(pkg.rateLimit({ limit: '1/min', store: new core.MemoryStore() }));
    app.use((ctx) => { ctx.body = { rateLimit: ctx.state.rateLimit }; });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((ready) => server.once('listening', ready));
    try {
      const url = 'http://127.0.0.1:' + server.address().port + '/';
      const first = await fetch(url);
      const second = await fetch(url);
      await second.arrayBuffer();
      return {
        statuses: [first.status, second.status],
        limit: first.headers.get('x-ratelimit-limit'),
        rateLimit: (await first.json()).rateLimit,
      };
    } finally {
      server.close();
      server.closeAllConnections();
    }
  `,
  check(result) {
    expect(result.statuses).toEqual([200, 429]);
    expect(result.limit).toBe('1');
    expect(result.rateLimit).toMatchObject({ allowed: true, remaining: 0 });
  },
});
