import { describePackageExports } from '@sluice/test-kit';

// @sluice/core built with tsup (with its declarations) and loaded by name through its
// exports map, with require() and with import(): real decisions, and its dependencies
// (ms for duration strings) resolved in each format.
describePackageExports({
  name: 'core',
  declarations: true,
  functions: ['gcra', 'RateLimiter', 'MemoryStore'],
  probe: `
    const limiter = new pkg.RateLimiter({
      algorithm: pkg.gcra({ rate: 1, period: '1 minute', burst: 1 }),
      store: new pkg.MemoryStore({ maxKeys: 10 }),
    });
    const first = await limiter.consume('probe');
    const second = await limiter.consume('probe');
    // metrics: true finds the optional peer @opentelemetry/api in either format
    const http = await load('@sluice/core/http');
    const otel = typeof http.loadOpenTelemetryApi()?.metrics?.getMeter;
    return { first, second, periodMs: pkg.parseDuration('period', '1 minute'), otel };
  `,
  check(result) {
    expect(result.periodMs).toBe(60_000);
    expect(result.otel).toBe('function');
    expect(result.first).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    expect(result.second).toMatchObject({ allowed: false, remaining: 0 });
  },
});
