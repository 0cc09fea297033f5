// Regression tests for Envoy adaptive concurrency's known failures, on sluice's adaptive
// limit: 503 bursts while probing (envoy#8337, #18152), a minimum RTT ratcheting up under
// load (#11579), an empty window read as a huge RTT (#14997), probing conflated with the
// floor (#46532). Fake clock throughout: the simulation (test-kit) drives the real
// controller, AdaptiveConcurrency.
import { p99Between, simulate } from '@sluice/test-kit';
import { AdaptiveConcurrency } from '../../src/adaptive/adaptive-concurrency.js';
import { gradient2Update } from '../../src/adaptive/gradient2.js';
import { parseAdaptiveOptions } from '../../src/adaptive/options.js';
import { EMPTY_WINDOW } from '../../src/adaptive/sample.js';

const G = parseAdaptiveOptions({ min: 2, max: 200 });

describe('envoy#14997: an empty window', () => {
  it('leaves the state, the baseline (minimum RTT) included, unchanged', () => {
    const state = { limit: 12.5, baselineMs: 20 };
    expect(gradient2Update(G, state, EMPTY_WINDOW)).toBe(state);
  });

  it('after a silence, the limit and baseline are what they were before it', () => {
    const a = new AdaptiveConcurrency(parseAdaptiveOptions({ min: 1, max: 50, minSamples: 5 }));
    let t = 0;
    for (let w = 0; w < 20; w++) {
      for (let i = 0; i < 10; i++) a.tryAcquire(t);
      for (let i = 0; i < 10; i++) a.release(t, t + 20);
      t += 100;
    }
    const before = { limit: a.limit, baseline: a.baselineMs };
    // 60 s without a request, then one arrives: windows close empty, nothing moves.
    t += 60_000;
    a.tryAcquire(t);
    a.release(t, t + 20);
    a.tryAcquire(t + 5000);
    expect({ limit: a.limit, baseline: a.baselineMs }).toEqual(before);
  });
});

describe('envoy#11579: the minimum RTT under sustained load', () => {
  it('does not ratchet up over 60 s of 2× overload, and latency does not creep', () => {
    const gate = new AdaptiveConcurrency(parseAdaptiveOptions({}));
    const baselines: number[] = [];
    const probe = {
      get limit() {
        return gate.limit;
      },
      tryAcquire: (t: number) => gate.tryAcquire(t),
      release: (s: number, t: number) => {
        gate.release(s, t);
        if (baselines.length < t / 1000) baselines.push(gate.baselineMs!);
      },
    };
    const r = simulate({
      seconds: 60,
      ratePerSecond: 800,
      workers: () => 8,
      serviceMs: 20,
      gate: probe,
    });
    // The service takes 18–22 ms: the baseline stays there, the last second's as the 5th's.
    expect(Math.max(...baselines.slice(5))).toBeLessThanOrEqual(22);
    expect(baselines[59]!).toBeLessThanOrEqual(baselines[5]! + 0.5);
    expect(p99Between(r, 50_000, 60_000)).toBeLessThanOrEqual(p99Between(r, 5_000, 15_000) * 1.1);
  });

  it('a genuinely slower service (every window saturated) is learned at the floor, and the limit recovers', () => {
    let s = { limit: 10, baselineMs: 20 as number | undefined };
    for (let i = 0; i < 400; i++) {
      const maxInFlight = Math.floor(s.limit);
      s = gradient2Update(G, s, {
        count: 20,
        rttMs: 42,
        minRttMs: 40,
        maxInFlight,
        dropped: false,
      });
    }
    // Learned at the floor until the limit can leave it (it left 20 ms far behind), never
    // above the real minimum; the limit is back well above min.
    expect(s.baselineMs!).toBeGreaterThan(35);
    expect(s.baselineMs!).toBeLessThanOrEqual(40);
    expect(s.limit).toBeGreaterThanOrEqual(8);
  });
});

describe('envoy#8337 / #18152: no 503 burst from probing', () => {
  it('at half of capacity, nothing is shed in any second after the first', () => {
    const gate = new AdaptiveConcurrency(parseAdaptiveOptions({}));
    const r = simulate({ seconds: 60, ratePerSecond: 200, workers: () => 8, serviceMs: 20, gate });
    const perSecond = new Array(60).fill(0);
    for (const t of r.shed) perSecond[Math.floor(t / 1000)]++;
    expect(perSecond.slice(1)).toEqual(new Array(59).fill(0));
  });

  it('at 2× overload, every second sheds about half (no burst): 40%–60% of arrivals', () => {
    const gate = new AdaptiveConcurrency(parseAdaptiveOptions({}));
    const r = simulate({ seconds: 60, ratePerSecond: 800, workers: () => 8, serviceMs: 20, gate });
    const shed = new Array(60).fill(0);
    for (const t of r.shed) shed[Math.floor(t / 1000)]++;
    const served = new Array(60).fill(0);
    for (const f of r.finished) served[Math.floor(f.arrivedMs / 1000)]++;
    const fractions = shed.slice(5, 59).map((n, i) => n / (n + served[i + 5]!));
    expect(Math.min(...fractions)).toBeGreaterThanOrEqual(0.4);
    expect(Math.max(...fractions)).toBeLessThanOrEqual(0.6);
  });

  it('at 2× overload the limit never dips periodically to re-measure (no limit below 60% of its median after warm-up)', () => {
    const gate = new AdaptiveConcurrency(parseAdaptiveOptions({}));
    const r = simulate({ seconds: 60, ratePerSecond: 800, workers: () => 8, serviceMs: 20, gate });
    const steady = r.limits.filter(([t]) => t >= 5000).map(([, l]) => l);
    const median = [...steady].sort((a, b) => a - b)[steady.length >> 1]!;
    expect(Math.min(...steady)).toBeGreaterThanOrEqual(Math.floor(median * 0.6));
  });
});

describe('envoy#46532: probing is not the floor', () => {
  it('min is only a floor: an idle-then-busy service is not pinned to min to measure', () => {
    const gate = new AdaptiveConcurrency(parseAdaptiveOptions({ min: 3, initial: 20 }));
    const r = simulate({ seconds: 30, ratePerSecond: 300, workers: () => 8, serviceMs: 20, gate });
    expect(Math.min(...r.limits.map(([, l]) => l))).toBeGreaterThan(3);
  });

  it('at the floor, the baseline still learns (a limit at min is not stuck there)', () => {
    let s = { limit: 2, baselineMs: 5 as number | undefined };
    for (let i = 0; i < 300; i++) {
      const maxInFlight = Math.floor(s.limit);
      s = gradient2Update(G, s, {
        count: 20,
        rttMs: 42,
        minRttMs: 40,
        maxInFlight,
        dropped: false,
      });
    }
    expect(s.limit).toBeGreaterThan(G.min + 5);
  });
});
