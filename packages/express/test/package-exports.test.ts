import { describePackageExports } from '@sluice/test-kit';

// @sluice/express (and the @sluice/core it requires) built with tsup and loaded by name
// through its exports map, with require() and with import(): one real decision through
// the built middleware.
describePackageExports({
  name: 'express',
  functions: ['rateLimit', 'throttle', 'Throttle', 'SkipThrottle', 'Limit'],
  probe: `
    const middleware = pkg.rateLimit({ limit: '1/min', store: new pkg.MemoryStore() });
    const req = { method: 'GET', baseUrl: '', ip: '10.0.0.1', headers: {}, socket: {} };
    const headers = {};
    const res = { setHeader: (n, v) => { headers[n] = v; } };
    let nextArgs;
    middleware(req, res, (...args) => { nextArgs = args; });
    return { nextArgs, headers, rateLimit: req.rateLimit };
  `,
  check(result) {
    expect(result.nextArgs).toEqual([]);
    expect((result.headers as Record<string, string>)['X-RateLimit-Limit']).toBe('1');
    expect(result.rateLimit).toMatchObject({ allowed: true, remaining: 0 });
  },
});
