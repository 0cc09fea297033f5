// Space-Saving top-K (k = 1024) on a Zipf(1.1) stream of 1M ids over 100k subjects: the 10
// most frequent are found (recall 10/10), and every count overestimates by at most its error.
import { SpaceSaving } from '../../src/operations/top-k.js';

function zipfSampler(n: number, s: number, seed: number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += 1 / (i + 1) ** s;
    cdf[i] = sum;
  }
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const u = (state / 2 ** 31) * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

describe('SpaceSaving', () => {
  it('k = 1024, Zipf(1.1), 1M requests over 100k subjects: top-10 recall 10/10, counts within their error', () => {
    const subjects = Array.from({ length: 100_000 }, (_, i) => `user:${(i * 7919) % 100_003}`);
    const next = zipfSampler(100_000, 1.1, 42);
    const truth = new Map<string, number>();
    const top = new SpaceSaving(1024);
    for (let i = 0; i < 1_000_000; i++) {
      const id = subjects[next()]!;
      top.add(id);
      truth.set(id, (truth.get(id) ?? 0) + 1);
    }
    const exact = [...truth.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
    const found = top.top(10);
    expect(new Set(found.map((r) => r.id))).toEqual(new Set(exact.map(([id]) => id)));
    for (const row of top.top(1024)) {
      const real = truth.get(row.id)!;
      expect(row.count).toBeGreaterThanOrEqual(real);
      expect(row.count - row.error).toBeLessThanOrEqual(real);
    }
    expect(top.total).toBe(1_000_000);
  });

  it('with fewer ids than counters, counts are exact', () => {
    const top = new SpaceSaving(4);
    for (const id of ['a', 'b', 'a', 'c', 'a', 'b']) top.add(id);
    expect(top.top(3)).toEqual([
      { id: 'a', count: 3, error: 0 },
      { id: 'b', count: 2, error: 0 },
      { id: 'c', count: 1, error: 0 },
    ]);
  });
});
