/**
 * The traffic the algorithm plots show, decided by the real core: each request goes through
 * the same `HttpLimiter` the Express, Fastify and Koa adapters use, with
 * `limit: 'throttle:5,1'` and the `algorithm` option set to each algorithm's name. Nothing
 * here is hard-coded but the traffic itself; the figures on docs/guide/algorithms.md are
 * checked against these results by docs/test/algorithms.test.ts.
 */
import { MemoryStore } from '@sluice/core';
import { HttpLimiter, type HttpVerdict, type RequestView } from '@sluice/core/http';
import type { AlgorithmKind } from '@sluice/core/store';

/** The algorithm names the middleware's `algorithm` option takes, in plot order. */
export const ALGORITHMS: readonly AlgorithmKind[] = [
  'gcra',
  'fixed-window',
  'sliding-window',
  'sliding-log',
];

/** Every scenario's limit: 5 requests per minute (Laravel's `throttle:5,1`). */
export const LIMIT = 'throttle:5,1';

/**
 * Where the traffic starts: 45 s after a whole minute of the clock (12:00:45 UTC). Only the
 * sliding window cares (its windows are aligned to the clock's minutes); see
 * {@link slidingWindowPhases}.
 */
export const START_MS = Date.UTC(2026, 0, 1, 12, 0, 45);

export interface Scenario {
  /** File name of the plot (`<id>.svg`) and anchor on the algorithms page. */
  id: string;
  title: string;
  /** When each request is sent, in ms after {@link START_MS}, ascending. */
  times: number[];
  /** The plot's x range, in seconds. */
  seconds: number;
}

const range = (from: number, to: number, step: number) => {
  const out: number[] = [];
  for (let t = from; t < to; t += step) out.push(t);
  return out;
};

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'burst',
    title: 'Bursts: 1 request at 0 s, then 10 (0.5 s apart) from 55 s, 61 s and 100 s',
    times: [
      0,
      ...range(55_000, 60_000, 500),
      ...range(61_000, 66_000, 500),
      ...range(100_000, 105_000, 500),
    ],
    seconds: 120,
  },
  {
    id: 'steady',
    title: 'A steady stream above the rate: one request every 4 s (15 a minute)',
    times: range(0, 180_000, 4000),
    seconds: 180,
  },
  {
    id: 'login',
    title: 'The login case: one attempt a second for 2 minutes, from 12:00:45',
    times: range(0, 120_000, 1000),
    seconds: 120,
  },
];

export interface Outcome {
  /** ms after {@link START_MS}. */
  t: number;
  allowed: boolean;
  /** `Retry-After` (s) of a denied request, 0 when allowed. */
  retryAfter: number;
  remaining: number;
}

function view(): RequestView {
  return { method: 'POST', route: 'POST /login', ip: '203.0.113.7', headers: {}, raw: {} };
}

/** Sends `times` (ms after `start`) through one limiter running `algorithm`. */
export function run(
  algorithm: AlgorithmKind,
  times: readonly number[],
  start = START_MS,
): Outcome[] {
  let now = start;
  const limiter = new HttpLimiter({
    limit: LIMIT,
    algorithm,
    store: new MemoryStore(),
    clock: () => now,
  });
  return times.map((t) => {
    now = start + t;
    const verdict = limiter.check(view()) as HttpVerdict;
    return {
      t,
      allowed: verdict.allowed,
      retryAfter: verdict.retryAfterSeconds,
      remaining: verdict.decision.remaining,
    };
  });
}

/** How many of `outcomes` were admitted at `t < untilMs`. */
export function admittedBefore(outcomes: readonly Outcome[], untilMs: number): number {
  return outcomes.filter((o) => o.allowed && o.t < untilMs).length;
}

/** Each scenario's outcomes per algorithm. */
export function simulate(): Map<string, Map<AlgorithmKind, Outcome[]>> {
  const all = new Map<string, Map<AlgorithmKind, Outcome[]>>();
  for (const s of SCENARIOS) {
    all.set(s.id, new Map(ALGORITHMS.map((a) => [a, run(a, s.times)])));
  }
  return all;
}

/**
 * The login traffic's first-minute admissions under the sliding window when it starts
 * `offset` seconds after a whole minute of the clock, for each offset given.
 */
export function slidingWindowPhases(offsets: readonly number[]): Map<number, number> {
  const login = SCENARIOS.find((s) => s.id === 'login')!;
  const minute = Date.UTC(2026, 0, 1, 12, 0, 0);
  return new Map(
    offsets.map((o) => [
      o,
      admittedBefore(run('sliding-window', login.times, minute + o * 1000), 60_000),
    ]),
  );
}

/**
 * The table of docs/guide/algorithms.md: admitted requests in the first minute and in all,
 * per scenario and algorithm. The page must contain it verbatim (algorithms.test.ts).
 */
export function summaryTable(): string {
  const results = simulate();
  const head = `| algorithm | ${SCENARIOS.map((s) => `${s.id}: 1st minute / all`).join(' | ')} |`;
  const rule = `| --- | ${SCENARIOS.map(() => '---').join(' | ')} |`;
  const rows = ALGORITHMS.map((a) => {
    const cells = SCENARIOS.map((s) => {
      const o = results.get(s.id)!.get(a)!;
      return `${admittedBefore(o, 60_000)} / ${admittedBefore(o, Number.POSITIVE_INFINITY)}`;
    });
    return `| \`${a}\` | ${cells.join(' | ')} |`;
  });
  return [head, rule, ...rows].join('\n');
}
