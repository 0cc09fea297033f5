import { describePackageExports } from '@sluice/test-kit';

// @sluice/core built with tsup (with its declarations) and loaded by name through its
// exports map, with require() and with import(): real decisions, and its dependencies
// (ms for duration strings) resolved in each format. Each run also loads the other build
// in the same process (ESM import and CommonJS require): they share the default
// `throttles` registry and the default stores, and `instanceof` holds across them.
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
    const { createRequire } = await import('node:module');
    const requireHere = createRequire(process.cwd() + '/');
    const esm = await import('@sluice/core');
    const esmHttp = await import('@sluice/core/http');
    const cjs = requireHere('@sluice/core');
    const cjsHttp = requireHere('@sluice/core/http');
    const cjsStore = requireHere('@sluice/core/store');
    const app = {};
    esm.throttles.define('login', () => esm.Limit.perMinute(5));
    const dual = {
      twoBuilds: esm.RateLimiter !== cjs.RateLimiter,
      sameRegistry: esm.throttles === cjs.throttles,
      cjsNames: cjs.throttles.names,
      resolvedByCjs: cjsStore.resolveLimitInput('throttle:login').limitsFor({ ip: '127.0.0.1' }).length,
      limitAcross: esm.Limit.perMinute(1) instanceof cjs.Limit,
      errorAcross: new cjs.SluiceConfigError('x', 1, 'y') instanceof esm.SluiceConfigError,
      sameProcessStore: esmHttp.defaultStoreOf(undefined) === cjsHttp.defaultStoreOf(undefined),
      sameAppStore: esmHttp.defaultStoreOf(app) === cjsHttp.defaultStoreOf(app),
      otherApp: esmHttp.defaultStoreOf({}) !== cjsHttp.defaultStoreOf(app),
    };
    // metrics: true finds the optional peer @opentelemetry/api in either format
    const http = await load('@sluice/core/http');
    const warnings = [];
    const metered = new http.HttpLimiter({ metrics: true, logger: { warn: (m) => warnings.push(m) } });
    const otel = { recording: metered.metrics !== undefined, warnings };
    // What an uncaught SluiceConfigError prints: its own class name, not a bundler's rename.
    const { inspect } = await import('node:util');
    const error = new pkg.SluiceConfigError('rate', 0, 'a number > 0');
    const names = {
      name: error.name,
      constructor: error.constructor.name,
      printed: inspect(error).split(String.fromCharCode(10))[0],
      stack: error.stack.split(String.fromCharCode(10))[0],
      limit: pkg.Limit.name,
    };
    // The front doors' entry, in either format: the protocol limiter and its verdict.
    const protocol = await load('@sluice/core/protocol');
    const duration = await load('@sluice/core/duration');
    const front = {
      limiter: typeof protocol.ProtocolLimiter,
      verdict: typeof protocol.ProtocolVerdict,
      storeOptions: protocol.PROTOCOL_STORE_OPTIONS.length > 0,
      notInRoot: pkg.ProtocolLimiter === undefined,
    };
    const periodMs = duration.parseDuration('period', '1 minute');
    return { first, second, periodMs, dual, otel, names, front };
  `,
  check(result) {
    const printed =
      'SluiceConfigError: sluice: invalid option "rate": expected a number > 0, got a number (0)';
    expect(result.names).toEqual({
      name: 'SluiceConfigError',
      constructor: 'SluiceConfigError',
      printed,
      stack: printed,
      limit: 'Limit',
    });
    expect(result.periodMs).toBe(60_000);
    expect(result.front).toEqual({
      limiter: 'function',
      verdict: 'function',
      storeOptions: true,
      notInRoot: true,
    });
    expect(result.otel).toEqual({ recording: true, warnings: [] });
    expect(result.first).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    expect(result.second).toMatchObject({ allowed: false, remaining: 0 });
    // The ESM and CommonJS builds in one process: one registry, one set of default stores.
    expect(result.dual).toEqual({
      twoBuilds: true,
      sameRegistry: true,
      cjsNames: ['login'],
      resolvedByCjs: 1,
      limitAcross: true,
      errorAcross: true,
      sameProcessStore: true,
      sameAppStore: true,
      otherApp: true,
    });
  },
});
