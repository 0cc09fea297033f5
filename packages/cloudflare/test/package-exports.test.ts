import { describePackageExports } from '@sluice/test-kit';

// @sluice/cloudflare (and the @sluice/core it requires) built with tsup and loaded by name
// through its exports map, with require() and with import(): a DurableObjectStore reaching
// a SluiceDurableObject in-process (its storage a Map), 3 decisions on a limit of 2.
describePackageExports({
  name: 'cloudflare',
  functions: ['DurableObjectStore', 'SluiceDurableObject', 'WorkersRateLimitBindingStore'],
  probe: `
    const core = await load('@sluice/core');
    const data = new Map();
    const storage = {
      get: async (keys) => new Map(keys.filter((k) => data.has(k)).map((k) => [k, data.get(k)])),
      put: async (entries) => { for (const [k, v] of Object.entries(entries)) data.set(k, v); },
      delete: async (keys) => keys.filter((k) => data.delete(k)).length,
      list: async () => new Map(data),
      getAlarm: async () => 1,
      setAlarm: async () => undefined,
    };
    const object = new pkg.SluiceDurableObject({ storage });
    const namespace = { idFromName: (n) => n, get: () => ({ fetch: (url, init) => object.fetch(new Request(url, init)) }) };
    const store = new pkg.DurableObjectStore({ namespace });
    const limiter = new core.RateLimiter({ algorithm: core.fixedWindow({ limit: 2, window: '1m' }), store });
    const allowed = [];
    for (let i = 0; i < 3; i++) allowed.push((await limiter.consume('k')).allowed);
    return { allowed, stored: data.size };
  `,
  check(result) {
    expect(result.allowed).toEqual([true, true, false]);
    expect(result.stored).toBe(1);
  },
});
