/**
 * An overload simulation with a fake clock: Poisson arrivals at a server whose `workers`
 * serve one request each for `serviceMs` (FIFO queue behind them, so latency grows with the
 * requests in flight), optionally behind a concurrency gate (an adaptive limit). Used by the
 * core's adaptive-concurrency tests and by the docs plot (`pnpm bench:overload-simulation`).
 * Deterministic for a seed; no timers, no I/O: 90 simulated seconds run in well under a second.
 */
import { seededRandom } from './store-traces.js';

/** What the simulation needs of a limit: `AdaptiveConcurrency` has this shape. */
export interface SimulatedGate {
  readonly limit: number;
  tryAcquire(nowMs: number): boolean;
  release(startMs: number, nowMs: number): void;
}

/** The simulated load and server. */
export interface SimulationOptions {
  /** Simulated seconds. */
  seconds: number;
  /** Arrivals per second (Poisson). */
  ratePerSecond: number;
  /** Workers at time t (ms): e.g. `t => (t < 60_000 ? 8 : 4)`. */
  workers: (tMs: number) => number;
  /** Mean service time per request, ms (each one uniform within ±10% of it). */
  serviceMs: number;
  /** The gate, or `undefined` for no limiter. */
  gate?: SimulatedGate;
  /** Seed of the pseudo-random generator. @default 1 */
  seed?: number;
  /** Sample the gate's limit every this many ms. @default 100 */
  sampleEveryMs?: number;
}

/** One finished request: when it arrived and how long it took (ms). */
export interface Finished {
  arrivedMs: number;
  latencyMs: number;
}

/** What a run produced. */
export interface SimulationResult {
  finished: Finished[];
  /** Arrival times (ms) of the requests the gate refused. */
  shed: number[];
  /** `[t ms, limit]` every `sampleEveryMs`; empty without a gate. */
  limits: [number, number][];
}

/** A min-heap of completions `[timeMs, arrivedMs]`. */
class Completions {
  readonly #h: [number, number][] = [];
  get size(): number {
    return this.#h.length;
  }
  peek(): [number, number] | undefined {
    return this.#h[0];
  }
  push(e: [number, number]): void {
    const h = this.#h;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]![0] <= h[i]![0]) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }
  pop(): [number, number] {
    const h = this.#h;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]![0] < h[m]![0]) m = l;
        if (r < h.length && h[r]![0] < h[m]![0]) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }
}

/** Runs one simulation (see the module comment). */
export function simulate(o: SimulationOptions): SimulationResult {
  const rnd = seededRandom(o.seed ?? 1);
  const endMs = o.seconds * 1000;
  const every = o.sampleEveryMs ?? 100;
  const busy = new Completions();
  const waiting: number[] = []; // arrival times, FIFO
  let head = 0;
  const finished: Finished[] = [];
  const shed: number[] = [];
  const limits: [number, number][] = [];
  let nextSample = 0;
  const service = () => o.serviceMs * (0.9 + 0.2 * rnd());
  const startWaiting = (t: number) => {
    while (head < waiting.length && busy.size < o.workers(t)) {
      busy.push([t + service(), waiting[head++]!]);
    }
    if (head > 4096 && head * 2 > waiting.length) {
      waiting.splice(0, head);
      head = 0;
    }
  };
  let nextArrival = -Math.log(1 - rnd()) * (1000 / o.ratePerSecond);
  for (;;) {
    const done = busy.peek();
    const t = Math.min(nextArrival, done?.[0] ?? Number.POSITIVE_INFINITY);
    if (t > endMs) break;
    while (o.gate !== undefined && nextSample <= t) {
      limits.push([nextSample, o.gate.limit]);
      nextSample += every;
    }
    if (done !== undefined && done[0] <= nextArrival) {
      busy.pop();
      const [at, arrived] = done;
      finished.push({ arrivedMs: arrived, latencyMs: at - arrived });
      o.gate?.release(arrived, at);
      startWaiting(at);
      continue;
    }
    const at = nextArrival;
    nextArrival += -Math.log(1 - rnd()) * (1000 / o.ratePerSecond);
    if (o.gate !== undefined && !o.gate.tryAcquire(at)) {
      shed.push(at);
      continue;
    }
    waiting.push(at);
    startWaiting(at);
  }
  return { finished, shed, limits };
}

/** The `q` quantile (0..1) of `values` (nearest rank); NaN when empty. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** Requests that finished in `[fromMs, toMs)` (by their finish time). */
export function finishedBetween(r: SimulationResult, fromMs: number, toMs: number): Finished[] {
  return r.finished.filter((f) => {
    const end = f.arrivedMs + f.latencyMs;
    return end >= fromMs && end < toMs;
  });
}

/** Finished requests per second in `[fromMs, toMs)`: the goodput. */
export function goodput(r: SimulationResult, fromMs: number, toMs: number): number {
  return finishedBetween(r, fromMs, toMs).length / ((toMs - fromMs) / 1000);
}

/** p99 latency (ms) of the requests that finished in `[fromMs, toMs)`. */
export function p99Between(r: SimulationResult, fromMs: number, toMs: number): number {
  return quantile(
    finishedBetween(r, fromMs, toMs).map((f) => f.latencyMs),
    0.99,
  );
}
