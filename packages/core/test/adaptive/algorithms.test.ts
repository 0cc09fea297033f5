// The adaptive limits' pure updates (gradient2Update, aimdUpdate) and the per-process
// controller (AdaptiveConcurrency) on a fake clock; bad options are SluiceConfigErrors.
import { AdaptiveConcurrency } from '../../src/adaptive/adaptive-concurrency.js';
import { aimdUpdate } from '../../src/adaptive/aimd.js';
import { type Gradient2State, gradient2Update } from '../../src/adaptive/gradient2.js';
import { parseAdaptiveOptions } from '../../src/adaptive/options.js';
import { EMPTY_WINDOW, type WindowSample } from '../../src/adaptive/sample.js';
import { SluiceConfigError } from '../../src/index.js';

const G = parseAdaptiveOptions({ min: 2, max: 100 });
const A = parseAdaptiveOptions({ algorithm: 'aimd', min: 2, max: 100, timeout: 50 });

function window(rttMs: number, minRttMs: number, maxInFlight: number): WindowSample {
  return { count: 20, rttMs, minRttMs, maxInFlight, dropped: false };
}

describe('gradient2Update', () => {
  it('grows by the queue size (smoothed) while latency stays at the baseline', () => {
    const s = gradient2Update(G, { limit: 10, baselineMs: 20 }, window(20, 20, 10));
    expect(s.limit).toBeCloseTo(10 + G.queueSize * G.smoothing, 10);
  });

  it('shrinks when the window is slower than tolerance × baseline, by the gradient', () => {
    const s = gradient2Update(G, { limit: 20, baselineMs: 20 }, window(50, 45, 20));
    const gradient = Math.max(0.5, (G.tolerance * 20) / 50);
    expect(s.limit).toBeCloseTo(20 * 0.8 + (20 * gradient + G.queueSize) * 0.2, 10);
    expect(s.limit).toBeLessThan(20);
  });

  it('never shrinks by more than half a window (gradient floor 0.5) nor leaves [min, max]', () => {
    const slow = gradient2Update(G, { limit: 20, baselineMs: 1 }, window(10_000, 9000, 20));
    expect(slow.limit).toBeCloseTo(20 * 0.8 + (10 + G.queueSize) * 0.2, 10);
    let s: Gradient2State = { limit: 3, baselineMs: 1 };
    for (let i = 0; i < 7; i++) s = gradient2Update(G, s, window(10_000, 9000, 3));
    expect(s.limit).toBe(G.min);
    s = { limit: 99.9, baselineMs: 20 };
    for (let i = 0; i < 50; i++) s = gradient2Update(G, s, window(20, 20, 100));
    expect(s.limit).toBe(G.max);
  });

  it('does not grow while under half the limit is in use (app-limited)', () => {
    const s = gradient2Update(G, { limit: 40, baselineMs: 20 }, window(20, 20, 10));
    expect(s.limit).toBe(40);
  });

  it('takes a lower window minimum as the baseline at once', () => {
    const s = gradient2Update(G, { limit: 10, baselineMs: 30 }, window(25, 12, 10));
    expect(s.baselineMs).toBe(12);
  });

  it('does not mutate its state', () => {
    const state = Object.freeze({ limit: 10, baselineMs: 20 });
    expect(() => gradient2Update(G, state, window(50, 40, 10))).not.toThrow();
    expect(state).toEqual({ limit: 10, baselineMs: 20 });
  });
});

describe('aimdUpdate', () => {
  it('adds one per window with at least half the limit in use', () => {
    expect(aimdUpdate(A, { limit: 10 }, window(10, 10, 5)).limit).toBe(11);
    expect(aimdUpdate(A, { limit: 10 }, window(10, 10, 4)).limit).toBe(10);
  });

  it('multiplies by backoffRatio on a drop or a window slower than timeout', () => {
    expect(aimdUpdate(A, { limit: 20 }, { ...window(10, 10, 20), dropped: true }).limit).toBe(18);
    expect(aimdUpdate(A, { limit: 20 }, window(51, 40, 20)).limit).toBe(18);
    expect(aimdUpdate(A, { limit: 2 }, window(51, 40, 2)).limit).toBe(2);
  });

  it('leaves the state unchanged on an empty window', () => {
    const state = { limit: 7 };
    expect(aimdUpdate(A, state, EMPTY_WINDOW)).toBe(state);
  });
});

describe('AdaptiveConcurrency', () => {
  it('admits up to the limit, sheds past it, and a release frees a slot', () => {
    const a = new AdaptiveConcurrency(parseAdaptiveOptions({ min: 1, max: 10, initial: 3 }));
    expect([a.tryAcquire(0), a.tryAcquire(0), a.tryAcquire(0), a.tryAcquire(0)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(a.inFlight).toBe(3);
    a.release(0, 5);
    expect(a.tryAcquire(5)).toBe(true);
  });

  it('sheds sheddable requests first when a priority function is given', () => {
    const a = new AdaptiveConcurrency(
      parseAdaptiveOptions({ min: 1, max: 100, initial: 20, priority: () => 'default' }),
    );
    expect([
      a.capacityFor('sheddable'),
      a.capacityFor('default'),
      a.capacityFor('critical'),
    ]).toEqual([15, 18, 20]);
    for (let i = 0; i < 15; i++) expect(a.tryAcquire(0, 'sheddable')).toBe(true);
    expect(a.tryAcquire(0, 'sheddable')).toBe(false);
    for (let i = 0; i < 3; i++) expect(a.tryAcquire(0, 'default')).toBe(true);
    expect(a.tryAcquire(0, 'default')).toBe(false);
    expect(a.tryAcquire(0, 'critical')).toBe(true);
    expect(a.tryAcquire(0, 'critical')).toBe(true);
    expect(a.tryAcquire(0, 'critical')).toBe(false);
  });

  it('updates once a window has its samples, from their latency (fake clock)', () => {
    const a = new AdaptiveConcurrency(
      parseAdaptiveOptions({ min: 1, max: 100, initial: 10, window: 100, minSamples: 5 }),
    );
    // Saturated and four times slower than the first window's minimum: the limit falls.
    let t = 0;
    for (let w = 0; w < 5; w++) {
      for (let i = 0; i < 10; i++) a.tryAcquire(t);
      for (let i = 0; i < 10; i++) a.release(t, t + (w === 0 && i === 0 ? 10 : 40));
      t += 101;
    }
    a.tryAcquire(t);
    expect(a.baselineMs).toBe(10);
    expect(a.limit).toBeLessThan(10);
  });

  it('adds the injected event-loop delay to each window latency', () => {
    const build = (loopDelay?: () => number) =>
      new AdaptiveConcurrency(
        parseAdaptiveOptions({ min: 1, max: 100, initial: 10, minSamples: 1, loopDelay }),
      );
    const quiet = build();
    const busy = build(() => 30);
    for (const a of [quiet, busy]) {
      let t = 0;
      for (let w = 0; w < 4; w++) {
        for (let i = 0; i < 10; i++) a.tryAcquire(t);
        for (let i = 0; i < 10; i++) a.release(t, t + 10);
        t += 101;
      }
      a.tryAcquire(t);
    }
    expect(quiet.limit).toBeGreaterThanOrEqual(10);
    expect(busy.limit).toBeLessThan(10);
  });
});

describe('parseAdaptiveOptions', () => {
  it.each([
    [{ min: 10, max: 5 }, 'min'],
    [{ min: 2, max: 10, initial: 1 }, 'initial'],
    [{ min: 2, max: 10, initial: 11 }, 'initial'],
    [{ algorithm: 'vegas' }, 'algorithm'],
    [{ min: 0 }, 'min'],
    [{ window: 'soon' }, 'window'],
    [{ smoothing: 0 }, 'smoothing'],
    [{ tolerance: 0.5 }, 'tolerance'],
    [{ priority: 'high' }, 'priority'],
  ])('%j is a SluiceConfigError naming %s', (options, option) => {
    let error: unknown;
    try {
      parseAdaptiveOptions(options);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as SluiceConfigError).option).toBe(option);
  });

  it('names every unknown option in one message', () => {
    expect(() => parseAdaptiveOptions({ limit: 5, minRtt: 3 })).toThrow(/"limit".*"minRtt"/);
  });

  it('starts at 20 clamped into [min, max] when initial is not given', () => {
    expect(parseAdaptiveOptions({}).initial).toBe(20);
    expect(parseAdaptiveOptions({ max: 8 }).initial).toBe(8);
    expect(parseAdaptiveOptions({ min: 30, max: 40 }).initial).toBe(30);
  });
});
