/**
 * bench:core's report: the JSON it writes (read by `pnpm bench`'s pages) and the console
 * tables it prints, from the measured pairs, heap rows and scale rows.
 */

import { median, plainTable } from '../measure/common.js';
import type { ScaleRow } from '../measure/core-heap.js';
import type { Pair } from '../measure/core-loops.js';
import type { PeersReport } from '../measure/core-peers.js';

/** The JSON written by `--json` (read by `pnpm bench`'s report). */
export interface CoreReport {
  kind: 'core';
  date: string;
  machine: { cores: number; cpu: string; node: string; platform: string };
  config: {
    rounds: number;
    ms: number;
    keys: number;
    inFlight: number;
    sluice: string;
    rlf: string;
  };
  /** Decisions/s, medians (sluice, rlf) and every round. */
  throughput: {
    label: string;
    sluice: number;
    rlf: number;
    ratio: number;
    target: number | undefined;
    verdict: string;
    sluiceRounds: number[];
    rlfRounds: number[];
  }[];
  heap: {
    name: string;
    keys: number;
    overhead: number;
    withKeys: number;
    target: number | undefined;
    verdict: string;
  }[];
  scale?: {
    config: string;
    rounds: number;
    flatMinRatio: number;
    flatness: { sluice: number; rlf: number; store: number };
    verdict: string;
    rows: {
      keys: number;
      sluice: number;
      rlf: number;
      store: number;
      sluiceRounds: number[];
      rlfRounds: number[];
      storeRounds: number[];
      heapSluice: number;
      heapRlf: number;
      liveKeys: number;
    }[];
  };
  /** sluice vs every peer's in-memory store (measure/core-peers.ts); absent in older results. */
  peers?: PeersReport;
  overall: string;
}

const fmtRate = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;

/** The throughput rows into `report` and the console; whether a row failed its target. */
export function throughputSection(report: CoreReport, pairs: Pair[], config: string): boolean {
  let failed = false;
  const t = plainTable([
    'decisions/s (median)',
    'sluice',
    'RLF',
    'sluice / RLF',
    'target',
    'verdict',
  ]);
  for (const c of pairs) {
    const a = median(c.a_);
    const b = median(c.b_);
    const ratio = a / b;
    const pass = c.target === undefined ? '(info)' : ratio >= c.target ? 'PASS' : 'FAIL';
    if (pass === 'FAIL') failed = true;
    report.throughput.push({
      label: c.label,
      sluice: a,
      rlf: b,
      ratio,
      target: c.target,
      verdict: pass,
      sluiceRounds: c.a_,
      rlfRounds: c.b_,
    });
    t.push([
      c.label,
      fmtRate(a),
      fmtRate(b),
      `${ratio.toFixed(2)}x`,
      c.target === undefined ? '-' : `>= ${c.target}x RLF`,
      pass,
    ]);
  }
  console.log(t.toString());
  console.log(`sluice: ${config};`);
  console.log(
    'RLF: rate-limiter-flexible RateLimiterMemory({ points: 1e12, duration: 60 }) in every row.',
  );
  console.log(
    `per-round figures (M/s) sluice | RLF:\n${pairs
      .map(
        (c) =>
          `  ${c.label}: ${c.a_.map((x) => (x / 1e6).toFixed(2)).join(' ')} | ${c.b_.map((x) => (x / 1e6).toFixed(2)).join(' ')}`,
      )
      .join('\n')}\n`,
  );
  return failed;
}

/** The heap rows ([name, overhead, with keys], `keys` keys) into `report` and the console. */
export function heapSection(
  report: CoreReport,
  heapRows: [string, number, number][],
  keys: number,
): boolean {
  let failed = false;
  const h = plainTable([
    `heap bytes per key (${keys} keys)`,
    'store overhead (keys pre-built, retained outside)',
    'incl. key text (keys built on insert, held only by the store)',
    'vs RLF (overhead)',
    'target',
    'verdict',
  ]);
  const rlfOverhead = heapRows.find(([n]) => n === 'rate-limiter-flexible')![1];
  for (const [name, overhead, withKeys] of heapRows) {
    const isGcra = name === 'sluice GCRA';
    const verdict = isGcra ? (overhead <= 100 ? 'PASS' : 'FAIL') : '(info)';
    if (verdict === 'FAIL') failed = true;
    report.heap.push({
      name,
      keys,
      overhead,
      withKeys,
      target: isGcra ? 100 : undefined,
      verdict,
    });
    h.push([
      name,
      `${overhead.toFixed(1)} B`,
      `${withKeys.toFixed(1)} B`,
      name === 'rate-limiter-flexible' ? '-' : `${(overhead / rlfOverhead).toFixed(2)}x`,
      isGcra ? '<= 100 B' : '-',
      verdict,
    ]);
  }
  console.log(h.toString());
  console.log(
    'heap = (heapUsed + arrayBuffers) delta, each side read after global.gc() once it stops shrinking, divided by the key count; the store is created after the baseline, so preallocated LRU arrays count. "incl. key text": keys `user:<i>` built during insertion, prefixed by each limiter (sluice:/rlflx:).',
  );
  return failed;
}

/** The scale rows into `report` and the console; whether the flatness verdict failed. */
export function scaleSection(
  report: CoreReport,
  rows: ScaleRow[],
  how: { config: string; rounds: number; ms: number; flatMinRatio: number },
): boolean {
  const s = plainTable([
    'scale: keys',
    'sluice decisions/s',
    'RLF decisions/s',
    'sluice / RLF',
    'sluice store.consume (sync)',
    'sluice heap B/key',
    'RLF heap B/key',
  ]);
  for (const row of rows) {
    s.push([
      row.keys.toLocaleString('en-US'),
      fmtRate(median(row.sluice)),
      fmtRate(median(row.rlf)),
      `${(median(row.sluice) / median(row.rlf)).toFixed(2)}x`,
      fmtRate(median(row.store)),
      `${row.heapSluice.toFixed(1)} B`,
      `${row.heapRlf.toFixed(1)} B`,
    ]);
  }
  console.log(s.toString());
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const flat = (pick: (r: ScaleRow) => number[]) => median(pick(last)) / median(pick(first));
  const flatness = {
    sluice: flat((r) => r.sluice),
    rlf: flat((r) => r.rlf),
    store: flat((r) => r.store),
  };
  const flatPass = flatness.sluice >= how.flatMinRatio;
  console.log(
    `scale: ${how.config} for sluice (T = 1 h: every key stays resident), RLF as above; every key consumed once before measuring; median of ${how.rounds} interleaved rounds of ~${how.ms} ms over all keys round robin; heap = store overhead with keys pre-built.`,
  );
  console.log(
    `flat (decisions/s at ${last.keys} keys / at ${first.keys} keys, >= ${how.flatMinRatio}): sluice ${flatness.sluice.toFixed(2)} ${flatPass ? 'PASS' : 'FAIL'}; store.consume ${flatness.store.toFixed(2)}; RLF ${flatness.rlf.toFixed(2)} (info)`,
  );
  report.scale = {
    config: how.config,
    rounds: how.rounds,
    flatMinRatio: how.flatMinRatio,
    flatness,
    verdict: flatPass ? 'PASS' : 'FAIL',
    rows: rows.map((r) => ({
      keys: r.keys,
      sluice: median(r.sluice),
      rlf: median(r.rlf),
      store: median(r.store),
      sluiceRounds: r.sluice,
      rlfRounds: r.rlf,
      storeRounds: r.store,
      heapSluice: r.heapSluice,
      heapRlf: r.heapRlf,
      liveKeys: r.liveKeys,
    })),
  };
  return !flatPass;
}
