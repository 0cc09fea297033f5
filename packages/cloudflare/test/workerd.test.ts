import { LimitOperations } from '@sluice/core';
import type { WorkerdProcess } from '@sluice/test-kit';
import { DurableObjectStore } from '../src/index.js';
import { bridgeNamespace } from './bridge.js';
import { DOCS_WORKER, startDoWorker } from './workerd.js';

// The Durable Object store in real workerd (from npm, without nodejs_compat): the store in
// the Worker, the objects on workerd's transactional storage.
describe('DurableObjectStore and SluiceDurableObject on workerd', () => {
  let worker: WorkerdProcess;
  beforeAll(async () => {
    worker = await startDoWorker();
  }, 60_000);
  afterAll(() => worker?.stop());

  it('100 concurrent requests on one key through limitFetch admit exactly the limit (10)', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${worker.url}/limited`, { headers: { 'cf-connecting-ip': '203.0.113.50' } }).then(
          async (res) => {
            await res.arrayBuffer();
            return res.status;
          },
        ),
      ),
    );
    const failed = statuses.filter((s) => s !== 200 && s !== 429);
    expect({ failed, output: failed.length > 0 ? worker.output() : '' }).toEqual({
      failed: [],
      output: '',
    });
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(90);
    // Another client's key is untouched.
    const other = await fetch(`${worker.url}/limited`, {
      headers: { 'cf-connecting-ip': '203.0.113.51' },
    });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('9');
  }, 60_000);

  it('spreads keys over its shards, refuses all-or-nothing across shards, refunds and resets', async () => {
    const res = await fetch(`${worker.url}/checks`);
    const text = await res.text();
    expect({
      status: res.status,
      text: res.status === 200 ? '' : `${text}\n${worker.output()}`,
    }).toEqual({
      status: 200,
      text: '',
    });
    const checks = JSON.parse(text) as Record<string, unknown>;
    expect(checks.shardsReached).toBe(8);
    // 64 keys x 3 calls on a limit of 2 per key.
    expect(checks.admittedOfSpread).toBe(128);
    expect(checks.multiShard).toMatch(/^SluiceConfigError: .*"shards".*spans 2 shards/);
    expect(checks.custom).toMatch(/^TypeError: .*built-in algorithms.*custom is not one/);
    // 3 per minute: two taken, one given back → 2 left; after reset, full.
    expect(checks.refunded).toBe(2);
    expect(checks.afterReset).toBe(3);
  }, 60_000);

  it("a ban written by another process reaches the Worker's first decision after syncMs (1 s on its clock), with no fetch per decision", async () => {
    // The Worker's clock is the query's t; the ban's own clock is T0 too, so Retry-After is exact.
    const T0 = Date.now();
    const ask = async (t: number, client = '203.0.113.77') => {
      const res = await fetch(`${worker.url}/ops?t=${t}`, {
        headers: { 'cf-connecting-ip': client },
      });
      await res.arrayBuffer();
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        fetches: Number(res.headers.get('x-ops-fetches')),
      };
    };
    // The isolate's first decision loads the entries: one fetch to their object.
    expect(await ask(T0)).toEqual({ status: 200, retryAfter: null, fetches: 1 });
    const store = new DurableObjectStore({ namespace: bridgeNamespace(worker.url) });
    const ops = new LimitOperations({ store, prefix: 'opsdemo', clock: () => T0 });
    await ops.ban({ ip: '203.0.113.77' }, { for: '1h' });
    // Within syncMs the Worker decides from what it loaded, sending nothing for the entries.
    for (const t of [T0 + 1, T0 + 999]) {
      expect(await ask(t)).toEqual({ status: 200, retryAfter: null, fetches: 1 });
    }
    // Its first decision at syncMs reloads (one fetch) and waits for it: banned for what is left.
    expect({ answer: await ask(T0 + 1000), output: worker.output() }).toEqual({
      answer: { status: 429, retryAfter: '3599', fetches: 2 },
      output: expect.not.stringMatching(/hung|different request context/),
    });
    expect(await ask(T0 + 1001, '203.0.113.78')).toMatchObject({ status: 200, fetches: 2 });
    await ops.unban({ ip: '203.0.113.77' });
    expect(await ask(T0 + 1999)).toMatchObject({ status: 429 });
    expect(await ask(T0 + 2000)).toEqual({ status: 200, retryAfter: null, fetches: 3 });
  }, 60_000);
});

describe('the getting-started Worker (docs/snippets/cloudflare/worker.ts) on workerd', () => {
  let worker: WorkerdProcess;
  beforeAll(async () => {
    worker = await startDoWorker(DOCS_WORKER);
  }, 60_000);
  afterAll(() => worker?.stop());

  it('40 concurrent POST /login from one client: exactly 5 pass (5/min), the rest get 429', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 40 }, () =>
        fetch(`${worker.url}/login`, {
          method: 'POST',
          headers: { 'cf-connecting-ip': '198.51.100.7' },
        }).then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        }),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    // The global 100/min counted all 40; another client is untouched.
    const home = await fetch(`${worker.url}/`, { headers: { 'cf-connecting-ip': '198.51.100.7' } });
    expect(home.status).toBe(200);
    expect(home.headers.get('x-ratelimit-remaining')).toBe('59');
  }, 60_000);
});
