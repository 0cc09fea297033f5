import { describePackageExports } from '@sluice/test-kit';

// @sluice/client built with tsup and loaded by name through its exports map, with require()
// and with import(): one paced request through the built code, and the option check.
describePackageExports({
  name: 'client',
  functions: ['pacedFetch', 'parseRateLimitHeaders', 'WaitTooLongError', 'SluiceConfigError'],
  probe: `
    const seen = [];
    const fake = async (input) => {
      seen.push(String(input));
      return new Response('ok', { headers: { 'RateLimit-Policy': '"api";q=5;w=1', RateLimit: '"api";r=4;t=1' } });
    };
    const api = pkg.pacedFetch(fake);
    const status = (await api('https://example.test/a')).status;
    let option;
    try { pkg.pacedFetch(fake, { retries: -1 }); } catch (e) { option = e instanceof pkg.SluiceConfigError ? e.option : 'other'; }
    const parsed = pkg.parseRateLimitHeaders(new Headers({ RateLimit: '"api";r=0;t=2' }), 0).policies[0];
    return { status, seen, option, parsed };
  `,
  check(result) {
    expect(result).toEqual({
      status: 200,
      seen: ['https://example.test/a'],
      option: 'retries',
      parsed: expect.objectContaining({ id: 'api', remaining: 0, resetAt: 2000 }),
    });
  },
});
