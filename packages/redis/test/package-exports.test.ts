import { describePackageExports, type RedisProcess, startRedis } from '@sluice/test-kit';

let server: RedisProcess;

beforeAll(async () => {
  server = await startRedis();
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

// @sluice/redis (and the @sluice/core it requires) built with tsup and loaded by name
// through its exports map, with require() and with import(): real decisions through the
// built Lua scripts on a redis-server this test started, with ioredis.
describePackageExports({
  name: 'redis',
  functions: ['RedisStore', 'StoreAbandonedError', 'StoreTimeoutError'],
  env: () => ({ SLUICE_PROBE_REDIS_PORT: String(server.port) }),
  probe: `
    const core = await load('@sluice/core');
    const { Redis } = await load('ioredis');
    const client = new Redis({ host: '127.0.0.1', port: Number(process.env.SLUICE_PROBE_REDIS_PORT) });
    try {
      const limiter = new core.RateLimiter({
        algorithm: core.gcra({ rate: 1, period: '1 minute', burst: 1 }),
        store: new pkg.RedisStore({ client }),
        prefix: 'probe-' + format,
      });
      const first = await limiter.consume('probe');
      const second = await limiter.consume('probe');
      const store = await load('@sluice/core/store');
      // One class per error: the built package re-exports the built core's, in both formats.
      const sameErrors =
        pkg.StoreTimeoutError === store.StoreTimeoutError &&
        pkg.StoreAbandonedError === store.StoreAbandonedError &&
        new pkg.StoreTimeoutError(1) instanceof store.StoreTimeoutError;
      return { first, second, sameErrors, lua: Object.keys(pkg.LUA_SOURCES).length > 0 };
    } finally {
      client.disconnect();
    }
  `,
  check(result) {
    expect(result.lua).toBe(true);
    expect(result.sameErrors).toBe(true);
    expect(result.first).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    expect(result.second).toMatchObject({ allowed: false, remaining: 0 });
  },
});
