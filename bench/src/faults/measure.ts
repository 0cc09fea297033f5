// One cell's figures from its requests: what was offered and admitted against the limit,
// over- and under-admission, units lost, p99 added latency and time to recover.
import { quantile } from '../measure/common.js';
import type { Outcome } from './subjects.js';

/** One request: when it was sent (ms from the cell's start), what it got and how long it took. */
export interface Request {
  at: number;
  outcome: Outcome;
  ms: number;
}

/** A documented bound (null: none documented, so nothing is gated). */
export interface Bounds {
  over: number | null;
  lost: number | null;
}

export interface CellFigures {
  offered: number;
  admitted: number;
  denied: number;
  errors: number;
  limit: number;
  over: number;
  under: number;
  lost: number;
  p99AddedMs: number;
  recoverMs: number | null;
  logLines: number;
  crashes: number;
  /** What else the cell measured, one phrase. */
  note?: string;
}

export interface Timeline {
  faultAt: number;
  healAt: number | null;
  /** Units the limit allows over the whole cell (the limit, plus GCRA's refill). */
  allowed: number;
  limit: number;
  /** Units charged in the store at the end, and the requests admitted since the store's state began. */
  charged: number;
  chargedSince: number;
}

const round = (x: number): number => Math.round(x * 10) / 10;

export function figures(
  requests: Request[],
  t: Timeline,
  logLines: number,
  crashes: number,
): CellFigures {
  const admitted = requests.filter((r) => r.outcome === 'admitted').length;
  const errors = requests.filter((r) => r.outcome === 'error').length;
  const before = requests.filter((r) => r.at < t.faultAt).map((r) => r.ms);
  const baseline = before.length > 0 ? quantile(before, 0.5) : 0;
  const end = (t.healAt ?? Number.POSITIVE_INFINITY) + 500;
  const during = requests.filter((r) => r.at >= t.faultAt && r.at < end).map((r) => r.ms);
  const p99 = during.length > 0 ? quantile(during, 0.99) : baseline;
  let recoverMs: number | null = null;
  if (t.healAt !== null) {
    const healAt = t.healAt;
    const after = requests.filter((r) => r.at >= healAt).sort((a, b) => a.at - b.at);
    const slow = (r: Request) => r.outcome === 'error' || r.ms > Math.max(50, 5 * baseline);
    let lastBad = -1;
    after.forEach((r, i) => {
      if (slow(r)) lastBad = i;
    });
    // Recovered: every request from then on answered in time, and (when the limit had room
    // left) the first admission after the heal, so a breaker still open counts.
    if (lastBad < after.length - 1) {
      const steady = after[lastBad + 1]!.at - healAt;
      const admittedAfter = after.find((r) => r.outcome === 'admitted');
      recoverMs = round(
        Math.max(steady, admittedAfter === undefined ? 0 : admittedAfter.at - healAt),
      );
    }
  }
  const admittedSince = requests.filter(
    (r) => r.outcome === 'admitted' && r.at >= t.chargedSince,
  ).length;
  return {
    offered: requests.length,
    admitted,
    denied: requests.length - admitted - errors,
    errors,
    limit: t.limit,
    over: Math.max(0, admitted - t.allowed),
    under: Math.max(0, Math.min(requests.length, t.allowed) - admitted),
    lost: Math.max(0, t.charged - admittedSince),
    p99AddedMs: round(Math.max(0, p99 - baseline)),
    recoverMs,
    logLines,
    crashes,
  };
}

/** What broke a documented bound, one phrase each (empty: within every bound). */
export function breaches(f: CellFigures, b: Bounds, gateCrashes: boolean): string[] {
  const out: string[] = [];
  if (b.over !== null && f.over > b.over) out.push(`over-admission ${f.over} > bound ${b.over}`);
  if (b.lost !== null && f.lost > b.lost) out.push(`units lost ${f.lost} > bound ${b.lost}`);
  if (gateCrashes && f.crashes > 0) out.push(`${f.crashes} crash(es)`);
  return out;
}
