// The OpenTelemetry gauge sluice.denials.top: the denial counts of this process's
// most-denied subjects by rank (sluice.rank 1..10), read through the SDK's in-memory
// exporter; never a subject's id in an attribute; every limiter on the same store and
// prefix shares one snapshot (counted once); limiters on two stores add up by rank.
import { EPOCH, otelCapture } from '@sluice/test-kit';
import { HttpLimiter } from '../../src/http/index.js';
import {
  type HttpLimitOptions,
  Limit,
  LimitOperations,
  MemoryStore,
  type RequestView,
} from '../../src/index.js';

function view(ip: string): RequestView {
  return { method: 'GET', route: 'GET /a', ip, headers: {}, raw: {} };
}

const IPS = ['203.0.113.7', '198.51.100.9', '192.0.2.33', '192.0.2.44'];

describe('sluice.denials.top', () => {
  let otel: ReturnType<typeof otelCapture>;
  beforeEach(() => {
    otel = otelCapture();
  });
  afterEach(() => otel.shutdown());

  function limiter(store: MemoryStore, options: HttpLimitOptions = {}) {
    return new HttpLimiter({
      store,
      clock: () => EPOCH,
      limit: Limit.perMinute(1),
      metrics: { meterProvider: otel.meterProvider },
      ...options,
    });
  }

  it('reports the most-denied counts by rank (bans and limits alike), without ids', async () => {
    const store = new MemoryStore();
    const ops = new LimitOperations({ store, clock: () => EPOCH });
    const a = limiter(store);
    // A second limiter on the same store and prefix: the same snapshot, not counted twice.
    const b = limiter(store, { limit: Limit.perMinute(100).named('other') });
    await ops.ban({ ip: IPS[0]! }, { for: '1h' });
    for (let i = 0; i < 5; i++) expect((await a.check(view(IPS[0]!)))!.allowed).toBe(false);
    for (let i = 0; i < 4; i++) await a.check(view(IPS[1]!)); // 1 admitted, 3 denied
    await a.check(view(IPS[2]!));
    await a.check(view(IPS[2]!)); // 1 denied
    expect((await b.check(view(IPS[3]!)))!.allowed).toBe(true); // no denial: no rank
    expect((await b.check(view(IPS[0]!)))!.allowed).toBe(false); // the ban, by b: 6 in all
    const m = await otel.read();
    expect(m.units['sluice.denials.top']).toBe('{request}');
    expect(m.top).toEqual({ '1': 6, '2': 3, '3': 1 });
    expect(ops.top(3).map((r) => r.count)).toEqual([6, 3, 1]);
    for (const attribute of m.attributes) {
      for (const ip of IPS) expect(attribute).not.toContain(ip);
    }
    const rankAttributes = m.attributes.filter((x) => x.startsWith('sluice.rank='));
    expect(rankAttributes.sort()).toEqual(['sluice.rank=1', 'sluice.rank=2', 'sluice.rank=3']);
  });

  it('limiters on two stores add up by rank; at most 10 ranks', async () => {
    const one = new MemoryStore();
    const two = new MemoryStore();
    const first = limiter(one);
    const second = limiter(two);
    // 12 subjects denied on the first store (subject i: i + 1 denials), 1 on the second.
    for (let s = 0; s < 12; s++) {
      const ip = `10.0.0.${s + 1}`;
      for (let i = 0; i < s + 2; i++) await first.check(view(ip));
    }
    await second.check(view('10.9.9.9'));
    await second.check(view('10.9.9.9'));
    const m = await otel.read();
    const expected: Record<string, number> = {};
    for (let rank = 1; rank <= 10; rank++) expected[String(rank)] = 13 - rank;
    expected['1']! += 1; // the second store's only denied subject is its rank 1
    expect(m.top).toEqual(expected);
  });

  it('reports nothing while nobody is denied', async () => {
    const store = new MemoryStore();
    const l = limiter(store);
    await l.check(view(IPS[0]!));
    const m = await otel.read();
    expect(m.top).toEqual({});
    expect(m.requests).toEqual({ '1-per-60000ms|allowed': 1 });
  });
});
