import { describePackageExports } from '@sluice/test-kit';

// @sluice/fetch (and the @sluice/core it requires) built with tsup and loaded by name
// through its exports map, with require() and with import(): limitFetch in-process, twice.
describePackageExports({
  name: 'fetch',
  functions: ['limitFetch', 'createFetchLimiter', 'Limit'],
  probe: `
    const handler = pkg.limitFetch(() => new Response('ok'), {
      limit: '1/min',
      ip: () => '203.0.113.7',
    });
    const first = await handler(new Request('http://x/'));
    const second = await handler(new Request('http://x/'));
    return {
      statuses: [first.status, second.status],
      limit: first.headers.get('x-ratelimit-limit'),
      forwarded: typeof pkg.ip.forwardedFor({ trustedHops: 1 }),
    };
  `,
  check(result) {
    expect(result.statuses).toEqual([200, 429]);
    expect(result.limit).toBe('1');
    expect(result.forwarded).toBe('function');
  },
});
