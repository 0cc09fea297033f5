// The issue-35 simulation with a fake clock: 8 workers × 20 ms (400 rps capacity), Poisson
// arrivals at 800 rps. Behind the default adaptive limit the admitted p99 stays ≤ 30 ms and
// goodput ≥ 360 rps; with no limiter p99 passes 2 s within 30 s; capacity halved at 60 s,
// the limit settles within 5 s. The same run feeds the docs plot
// (bench/src/overload-simulation.ts).
import { goodput, p99Between, type SimulationResult, simulate } from '@sluice/test-kit';
import { AdaptiveConcurrency } from '../../src/adaptive/adaptive-concurrency.js';
import { parseAdaptiveOptions } from '../../src/adaptive/options.js';

const workers = (t: number) => (t < 60_000 ? 8 : 4);

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1]!;
}

function limitsBetween(r: SimulationResult, from: number, to: number): number[] {
  return r.limits.filter(([t]) => t >= from && t < to).map(([, l]) => l);
}

describe.each(['gradient2', 'aimd'] as const)('%s behind 2× overload', (algorithm) => {
  const options =
    algorithm === 'aimd'
      ? { algorithm, timeout: 25 }
      : ({ algorithm } as { algorithm: 'gradient2' });
  let r: SimulationResult;
  beforeAll(() => {
    const gate = new AdaptiveConcurrency(parseAdaptiveOptions(options));
    r = simulate({ seconds: 90, ratePerSecond: 800, workers, serviceMs: 20, gate });
  });

  it('goodput ≥ 360 rps from 5 s to 60 s', () => {
    expect(goodput(r, 5_000, 60_000)).toBeGreaterThanOrEqual(360);
  });

  if (algorithm === 'gradient2') {
    it('admitted p99 ≤ 30 ms from 5 s to 60 s, and in every 5 s of it', () => {
      expect(p99Between(r, 5_000, 60_000)).toBeLessThanOrEqual(30);
      for (let s = 5; s < 60; s += 5) {
        expect(p99Between(r, s * 1000, (s + 5) * 1000)).toBeLessThanOrEqual(30);
      }
    });

    it('capacity halved at 60 s: the limit settles within 5 s', () => {
      const before = median(limitsBetween(r, 30_000, 60_000));
      const settled = median(limitsBetween(r, 80_000, 90_000));
      expect(settled).toBeLessThan(before * 0.75);
      // From 65 s on, every sample is within one request of the settled limit.
      for (const l of limitsBetween(r, 65_000, 90_000)) {
        expect(Math.abs(l - settled)).toBeLessThanOrEqual(1);
      }
      // and still serving (nearly) the whole halved capacity, 200 rps.
      expect(goodput(r, 65_000, 90_000)).toBeGreaterThanOrEqual(180);
    });
  }
});

it('with no limiter, p99 passes 2 s within 30 s (the queue grows 400 requests a second)', () => {
  const r = simulate({ seconds: 30, ratePerSecond: 800, workers, serviceMs: 20 });
  expect(p99Between(r, 25_000, 30_000)).toBeGreaterThan(2_000);
  expect(p99Between(r, 0, 1_000)).toBeLessThan(2_000);
});
