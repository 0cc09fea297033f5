// Plans from a database: GET /api/plan on the three demo apps takes each tenant's limits
// from an async plan lookup through lru-cache's fetch (one load per tenant in flight).
import { MemoryStore } from '@sluice/core';
import { type RunningDemo, startDemo } from '../src/demo.js';
import { PLANS, planLoads, plans } from '../src/plans.js';

let demo: RunningDemo;

beforeAll(async () => {
  demo = await startDemo({
    port: 0,
    metrics: false,
    stores: {
      description: 'memory (test)',
      storeFor: () => new MemoryStore(),
      close: async () => {},
    },
  });
}, 60_000);

afterAll(async () => {
  await demo?.close();
});

const get = (url: string, tenant: string) =>
  fetch(`${url}/api/plan`, { headers: { authorization: `Bearer ${tenant}` } });

describe.each(['express', 'fastify', 'koa'] as const)('GET /api/plan (%s)', (framework) => {
  test('each tenant is limited by its plan, loaded once however many requests ask at once', async () => {
    const url = demo.urls[framework];
    const before = planLoads.count;
    const free = await Promise.all(Array.from({ length: 8 }, () => get(url, `free-${framework}`)));
    expect(planLoads.count - before).toBe(1);
    const statuses = free.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(free[0]!.headers.get('x-ratelimit-limit')).toBe(String(PLANS.free.perMinute));
    const pro = await get(url, `pro-${framework}`);
    expect(pro.status).toBe(200);
    expect(pro.headers.get('x-ratelimit-limit')).toBe(String(PLANS.pro.perMinute));
    expect(plans.has(`pro-${framework}`)).toBe(true);
  }, 30_000); // the first requests of an app compile its routes: slow on a loaded machine
});
