/**
 * `bench/results.md` (the full results: every round, every peer, each target and its gap)
 * and the chart `docs/benchmarks.svg`, from the JSON that `bench:core --json`,
 * `bench:redis --json` and `bench:http --json` write; the site's short page
 * (`docs/benchmarks.md`) is page.ts. Used by `pnpm bench` (src/all.ts); pure
 * functions of the run's results, so every figure comes from that run.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { HttpCase, HttpReport, HttpRow } from '../http.js';
import type { PeerRow } from '../measure/core-peers.js';
import type { PeerMemoryReport } from '../measure/redis-memory.js';
import type { OutcomeReport } from '../outcome.js';
import type { RedisReport } from '../redis.js';
import type { CoreReport } from './core-part.js';
import { summaryRows } from './summary.js';

export interface PartRun {
  name: 'core' | 'peers' | 'redis' | 'http' | 'outcome';
  /** The command line, relative to bench/. */
  command: string;
  seconds: number;
  exitCode: number | null;
}

export interface RunInfo {
  /** ISO time the run started. */
  date: string;
  /** What reproduces the run, from the repository root. */
  command: string;
  quick: boolean;
  machine: {
    cores: number;
    cpu: string;
    memGiB: number;
    os: string;
    node: string;
    redis: string;
    /** 1/5/15-minute load averages before and after the run. */
    loadBefore: number[];
    loadAfter: number[];
  };
  parts: PartRun[];
  totalSeconds: number;
}

export interface ReportInput {
  run: RunInfo;
  core?: CoreReport;
  redis?: RedisReport;
  http?: HttpReport;
  /** Give-backs and concurrency leases (bench/src/outcome.ts). */
  outcome?: OutcomeReport;
  /** Path of the chart, relative to the page that shows it. */
  chartFile: string;
}

// ---------------------------------------------------------------------------------------
// Formatting.

const mps = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;
const kps = (x: number) => `${(x / 1e3).toFixed(1)} k/s`;
const ns = (rate: number) => `${(1e9 / rate).toFixed(0)} ns`;
const ratio = (x: number) => `${x.toFixed(2)}x`;
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const bytes = (x: number) => `${x.toFixed(1)} B`;
const rounds = (xs: number[], scale: number, digits: number) =>
  xs.map((x) => (x / scale).toFixed(digits)).join(' ');
const count = (n: number) => n.toLocaleString('en-US');
const rps = (x: number) => Math.round(x).toLocaleString('en-US');
const us = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)} µs`;
/** Escapes a table cell. */
const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A markdown table, its cells escaped. */
export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

const code = (s: string) => `\`${s}\``;

// ---------------------------------------------------------------------------------------
// The targets: each figure's floor (what must hold) and aim.

interface TargetRow {
  target: string;
  measured: string;
  floor: string;
  aim: string;
  verdict: string;
  gap: string;
}

function coreTargets(core: CoreReport): TargetRow[] {
  const rows: TargetRow[] = [];
  const floor = core.throughput.find((r) => r.label.startsWith('extra: await floor'));
  const many = `${core.config.keys === 100_000 ? '100k' : core.config.keys} keys`;
  // [the compared row, its "what the store alone does" row, the aim in decisions/s]
  const cases: [string, number][] = [
    ['1 key', 10e6],
    [many, 4e6],
  ];
  for (const [keys, aim] of cases) {
    // The memory store's targets are judged on the store's own (synchronous) API; the
    // awaited RateLimiter.consume row is shown beside it with what bounds it (the await).
    const store = core.throughput.find(
      (x) => x.label === `MemoryStore (store.consume, its own API): GCRA, ${keys}`,
    );
    const limiter = core.throughput.find(
      (x) => x.label === `RateLimiter.consume (awaited): GCRA, ${keys}`,
    );
    if (store === undefined) continue;
    const pass = store.ratio >= 2;
    const aimMet = store.sluice >= aim;
    const parts: string[] = [];
    if (!pass)
      parts.push(`floor: ${ratio(store.ratio)} of RLF, ${pct(1 - store.ratio / 2)} short of 2x`);
    if (!aimMet)
      parts.push(`aim: ${mps(store.sluice)} is ${pct(store.sluice / aim)} of ${mps(aim)}`);
    if (limiter !== undefined) {
      parts.push(
        `awaited RateLimiter.consume: ${mps(limiter.sluice)} vs RLF ${mps(limiter.rlf)} = ${ratio(limiter.ratio)}` +
          (floor === undefined
            ? ''
            : ` (an await of a constant alone runs at ${mps(floor.sluice)}: ${ratio(floor.sluice / limiter.rlf)} of RLF is the ceiling of any promise API here)`),
      );
    }
    rows.push({
      target: `core, memory store, GCRA, ${keys}`,
      measured: `sluice MemoryStore ${mps(store.sluice)}, RLF RateLimiterMemory ${mps(store.rlf)}: ${ratio(store.ratio)}`,
      floor: '>= 2x rate-limiter-flexible',
      aim: `>= ${mps(aim)}`,
      verdict: `${pass ? 'PASS' : 'FAIL'}; aim ${aimMet ? 'met' : 'not met'}`,
      gap: parts.join('; ') || '-',
    });
  }
  const withTarget = core.throughput.filter((r) => r.target !== undefined);
  const failing = withTarget.filter((r) => r.verdict === 'FAIL');
  rows.push({
    target: 'core, memory store, every compared row (GCRA and fixed window, 1 key and many)',
    measured: `${withTarget.length - failing.length} of ${withTarget.length} at >= 2x RLF`,
    floor: '>= 2x rate-limiter-flexible',
    aim: '-',
    verdict: failing.length === 0 ? 'PASS' : 'FAIL',
    gap: failing.map((r) => `${r.label}: ${ratio(r.ratio)}`).join('; ') || '-',
  });
  const heap = core.heap.find((h) => h.name === 'sluice GCRA');
  const rlfHeap = core.heap.find((h) => h.name === 'rate-limiter-flexible');
  if (heap !== undefined) {
    const pass = heap.overhead <= 100;
    rows.push({
      target: `heap per key, memory store (GCRA, ${count(heap.keys)} keys, store overhead)`,
      measured: `sluice ${bytes(heap.overhead)}${rlfHeap ? `, RLF ${bytes(rlfHeap.overhead)}: ${ratio(heap.overhead / rlfHeap.overhead)}` : ''}`,
      floor: '<= 100 B',
      aim: '<= 100 B',
      verdict: pass ? 'PASS' : 'FAIL',
      gap: pass ? '-' : `${bytes(heap.overhead - 100)} over`,
    });
  }
  if (core.scale !== undefined) {
    const s = core.scale;
    const worst = Math.max(...s.rows.map((r) => r.heapSluice));
    rows.push({
      target: `heap per key at ${s.rows.map((r) => count(r.keys)).join(' / ')} keys`,
      measured: s.rows.map((r) => bytes(r.heapSluice)).join(' / '),
      floor: '<= 100 B',
      aim: '<= 100 B',
      verdict: worst <= 100 ? 'PASS' : 'FAIL',
      gap: worst <= 100 ? '-' : `worst ${bytes(worst)}`,
    });
    const first = s.rows[0]!;
    const last = s.rows.at(-1)!;
    const pass = s.flatness.sluice >= s.flatMinRatio;
    rows.push({
      target: `memory store: cost per decision flat from ${count(first.keys)} to ${count(last.keys)} keys`,
      measured: `decisions/s at ${count(last.keys)} / at ${count(first.keys)}: sluice ${s.flatness.sluice.toFixed(2)} (${mps(first.sluice)} -> ${mps(last.sluice)}), RLF ${s.flatness.rlf.toFixed(2)}`,
      floor: `ratio >= ${s.flatMinRatio} (this note's reading of "flat")`,
      aim: '-',
      verdict: pass ? 'PASS' : 'FAIL',
      gap: pass
        ? '-'
        : `${ns(first.sluice)} -> ${ns(last.sluice)} per awaited decision; the synchronous store.consume alone goes ${ns(first.store)} -> ${ns(last.store)} (ratio ${s.flatness.store.toFixed(2)}), so the growth is in the store's own lookup and update, not in the limiter around it; RLF's store slows too (ratio ${s.flatness.rlf.toFixed(2)}), consistent with memory-access cost once the keys no longer fit in the CPU caches (not yet profiled)`,
    });
  }
  // sluice vs every peer's in-memory store: the rows with a goal.
  for (const r of core.peers?.rows ?? []) {
    if (r.target === undefined) continue;
    rows.push({
      target: `core vs every peer, sluice RateLimiter + MemoryStore: ${r.label}`,
      measured: r.figures.map((f) => `${f.name} ${peerValue(r, f.median)}`).join(', '),
      floor: r.target,
      aim: r.target,
      verdict: r.verdict,
      gap: r.gap,
    });
  }
  return rows;
}

/** A figure of the every-peer table: decisions/s or heap bytes per key. */
const peerValue = (r: PeerRow, x: number) => (r.kind === 'rate' ? mps(x) : bytes(x));

type PeerMemoryRow = PeerMemoryReport['rows'][number];

function redisTargets(redis: RedisReport): TargetRow[] {
  const rows: TargetRow[] = [];
  const t = redis.config.targets;
  const plain = redis.throughput.find((r) => r.sluice && !r.autoPipelining);
  const auto = redis.throughput.find((r) => r.sluice && r.autoPipelining);
  const rlf = (autoPipelining: boolean) =>
    redis.throughput.find((r) => !r.sluice && r.autoPipelining === autoPipelining);
  const rlfAuto = rlf(true);
  const ceiling = redis.ceiling.rate;
  const noop = redis.noopCeiling.rate;
  for (const r of [plain, auto]) {
    const rlfSame = r && rlf(r.autoPipelining);
    if (r === undefined || rlfAuto === undefined || rlfSame === undefined) continue;
    const checks: [string, boolean, string][] = [
      [
        `>= ${t.vsRlfAuto}x RLF (auto-pipelined)`,
        r.vsRlfAuto >= t.vsRlfAuto,
        `${ratio(r.vsRlfAuto)} of RLF, ${pct(1 - r.vsRlfAuto / t.vsRlfAuto)} short`,
      ],
      [
        `>= ${pct(t.ofCeiling)} of the EVALSHA -P 16 ceiling in the same run`,
        r.ofCeiling >= t.ofCeiling,
        `${pct(r.ofCeiling)} of the ceiling; needs ${kps(t.ofCeiling * ceiling)}, ${kps(t.ofCeiling * ceiling - r.rate)} more`,
      ],
    ];
    if (r.ofPlain !== null && plain !== undefined)
      checks.push([
        `no slower than without (>= ${t.autoOfPlain}x, the tolerance for noise)`,
        r.ofPlain >= t.autoOfPlain,
        `${ratio(r.ofPlain)} of sluice without auto-pipelining (${kps(r.rate)} vs ${kps(plain.rate)})`,
      ]);
    const failing = checks.filter(([, pass]) => !pass);
    rows.push({
      target: `Redis decisions/s, one client, ${redis.config.inFlight} in flight${r.autoPipelining ? ', ioredis enableAutoPipelining' : ''}`,
      measured:
        `sluice ${kps(r.rate)}, RLF ${kps(rlfSame.rate)}${r.autoPipelining ? '' : ` (auto-pipelined ${kps(rlfAuto.rate)})`}: ${ratio(r.vsRlfAuto)} RLF auto-pipelined; ` +
        `${pct(r.ofCeiling)} of redis-benchmark -P 16 EVALSHA gcra ${kps(ceiling)} (EVALSHA 'return 1': ${kps(noop)})` +
        (r.ofPlain === null ? '' : `; ${ratio(r.ofPlain)} of sluice without auto-pipelining`),
      floor: checks.map(([what]) => what).join('; '),
      aim: '-',
      verdict: failing.length === 0 ? 'PASS' : 'FAIL',
      gap: failing.map(([, , gap]) => gap).join('; ') || '-',
    });
  }
  const sluiceMem = redis.memory.filter((m) => m.sluice);
  const peerMem = redis.memory.filter((m) => !m.sluice);
  if (sluiceMem.length > 0) {
    const worst = Math.max(...sluiceMem.map((m) => m.bytes));
    rows.push({
      target: 'Redis bytes per key (MEMORY USAGE)',
      measured: `sluice ${sluiceMem.map((m) => `${m.bytes} B`).join(' / ')}; ${peerMem.map((m) => `${m.label} ${m.bytes} B`).join(', ')}`,
      floor: '<= 100 B',
      aim: '<= 56 B',
      verdict: `${worst <= 100 ? 'PASS' : 'FAIL'}; aim ${worst <= 56 ? 'met' : 'not met'}`,
      gap:
        worst <= 56
          ? '-'
          : `aim: ${worst - 56} B over 56 B (see the Redis memory table for the key names: the key text is part of the figure)`,
    });
  }
  if (redis.peerMemory !== undefined) {
    const m = redis.peerMemory;
    const [sluice, ...peers] = m.rows as [PeerMemoryRow, ...PeerMemoryRow[]];
    const best = peers.find((p) => p.label === m.best)!;
    const several = peers.filter((p) => p.keysPerSubject !== 1);
    rows.push({
      target: `Redis used_memory per GCRA key (${count(m.keys)} keys, INFO memory delta)`,
      measured: `sluice ${bytes(sluice.bytesPerKey)}; ${peers.map((p) => `${p.label} ${bytes(p.bytesPerKey)}`).join(', ')}`,
      floor: `<= the best peer (+ ${m.toleranceB} B)`,
      aim: '-',
      verdict: m.verdict,
      gap:
        [
          m.verdict === 'PASS'
            ? ''
            : `${bytes(sluice.bytesPerKey - best.bytesPerKey)} per key over ${best.label} (${bytes(best.bytesPerKey)})`,
          ...several.map(
            (p) => `${p.label} stores ${p.keysPerSubject.toFixed(2)} keys per subject`,
          ),
        ]
          .filter((x) => x !== '')
          .join('; ') || '-',
    });
  }
  if (redis.scale !== undefined) {
    const s = redis.scale;
    const first = s.rows[0]!;
    const last = s.rows.at(-1)!;
    const pass = s.flatness.sluice >= s.flatMinRatio;
    rows.push({
      target: `Redis: cost per decision flat from ${count(first.keys)} to ${count(last.keys)} keys`,
      measured: `decisions/s at ${count(last.keys)} / at ${count(first.keys)}: sluice ${s.flatness.sluice.toFixed(2)} (${kps(first.sluice)} -> ${kps(last.sluice)}), RLF ${s.flatness.rlf.toFixed(2)}`,
      floor: `ratio >= ${s.flatMinRatio} (this note's reading of "flat")`,
      aim: '-',
      verdict: pass ? 'PASS' : 'FAIL',
      gap: pass ? '-' : `${kps(first.sluice)} -> ${kps(last.sluice)}`,
    });
    rows.push({
      target: `Redis memory per key at ${s.rows.map((r) => count(r.keys)).join(' / ')} keys (used_memory delta)`,
      measured: `sluice ${s.rows.map((r) => bytes(r.memSluice)).join(' / ')}; RLF ${s.rows.map((r) => bytes(r.memRlf)).join(' / ')}`,
      floor:
        '(info: sluice and RLF filled one after the other; judged: the used_memory per GCRA key row)',
      aim: '-',
      verdict: '(info)',
      gap: '-',
    });
  }
  return rows;
}

/** The HTTP targets, in the order of the summary, by bench:http case id. */
const HTTP_TARGETS: [string, string][] = [
  ['fastify-memory', 'Fastify, memory, allow'],
  ['fastify-deny', 'Fastify, memory, all requests denied (429)'],
  ['express-memory', 'Express, memory, allow'],
  ['koa-memory', 'Koa, memory, allow'],
  ['fastify-redis', 'Fastify, Redis, allow'],
  ['koa-redis', 'Koa, Redis, allow'],
];

/** The case's sluice row and its peers. */
const sides = (c: HttpCase) => ({
  base: c.rows.find((r) => r.role === 'unlimited')!,
  sluice: c.rows.find((r) => r.role === 'sluice')!,
  peers: c.rows.filter((r) => r.role === 'peer'),
});

/** "0.93 of unlimited, +1.5 µs, CPU ratio 0.94" */
const vsUnlimited = (r: HttpRow) =>
  `${r.ratio!.toFixed(2)} of unlimited, ${us(r.deltaUs!)}, CPU ratio ${r.cpuRatio!.toFixed(2)}`;

function httpTarget(target: string, c: HttpCase): TargetRow {
  const { base, sluice, peers } = sides(c);
  const s = sluice.ratio!;
  const parts: string[] = [];
  if (c.floor !== null && s < c.floor)
    parts.push(`floor: ${s.toFixed(2)}, ${pct(1 - s / c.floor)} short of ${c.floor.toFixed(2)}`);
  for (const p of peers.filter((p) => p.ratio! >= s))
    parts.push(`behind ${p.limiter} (${p.ratio!.toFixed(2)})`);
  const aim: string[] = [];
  if (s < c.aim.ratio) aim.push(`${s.toFixed(2)} < ${c.aim.ratio.toFixed(2)}`);
  if (c.aim.us !== null && sluice.deltaUs! > c.aim.us)
    aim.push(`${us(sluice.deltaUs!)}, ${(sluice.deltaUs! - c.aim.us).toFixed(1)} µs over`);
  if (aim.length > 0) parts.push(`aim: ${aim.join(', ')}`);
  if (base.busy < 0.8)
    parts.push(
      `unlimited server busy ${pct(base.busy)}: not CPU-bound, so the req/s ratio is noisy; read the CPU ratio (${c.cpuVerdict})`,
    );
  return {
    target,
    measured: [sluice, ...peers].map((r) => `${r.limiter} ${vsUnlimited(r)}`).join('; '),
    floor: c.floorText,
    aim: c.aimText,
    verdict: `${c.verdict}; aim ${c.aimMet ? 'met' : 'not met'}; on CPU ratio ${c.cpuVerdict}`,
    gap: parts.join('; ') || '-',
  };
}

function httpTargets(http: HttpReport | undefined, ran: boolean): TargetRow[] {
  return HTTP_TARGETS.map(([id, target]) => {
    const c = http?.cases.find((x) => x.id === id);
    if (c !== undefined) return httpTarget(target, c);
    return {
      ...notRun(target),
      measured: 'not measured',
      gap: !ran
        ? 'bench:http did not run'
        : http === undefined
          ? 'bench:http wrote no JSON (see bench/results/http.txt)'
          : 'not selected (--only)',
    };
  });
}

// ---------------------------------------------------------------------------------------
// The chart.

/** One bar of the chart: a limiter's figure in one case of one panel. */
export interface Bar {
  panel: string;
  case: string;
  limiter: string;
  value: number;
}

const HTTP_PANEL = 'HTTP: requests/s';

/** Every limiter the chart can show, in the order bars are stacked within a case. */
const LIMITERS: [string, string][] = [
  ['unlimited', '#7f7f7f'],
  ['sluice', '#1f77b4'],
  ['rate-limiter-flexible', '#ff7f0e'],
  ['@fastify/rate-limit', '#2ca02c'],
  ['express-rate-limit', '#d62728'],
  ['koa-ratelimit', '#9467bd'],
  ['redis-benchmark', '#bcbd22'],
];

function chartBars(input: ReportInput): Bar[] {
  const bars: Bar[] = [];
  const { core, redis, http } = input;
  if (http !== undefined) {
    const panel = `${HTTP_PANEL}, ${http.config.connections} connections (medians)`;
    for (const c of http.cases)
      for (const r of c.rows) bars.push({ panel, case: c.title, limiter: r.limiter, value: r.rps });
  }
  if (core !== undefined) {
    const panel = 'memory store: decisions/s, one at a time (medians)';
    for (const r of core.throughput) {
      if (
        r.label.startsWith('extra') ||
        r.label.includes('in flight') ||
        r.label.startsWith('RateLimiter')
      )
        continue;
      bars.push({ panel, case: r.label, limiter: 'sluice', value: r.sluice });
      bars.push({ panel, case: r.label, limiter: 'rate-limiter-flexible', value: r.rlf });
    }
    for (const r of core.scale?.rows ?? []) {
      const label = `GCRA, ${count(r.keys)} resident keys`;
      bars.push({ panel, case: label, limiter: 'sluice', value: r.sluice });
      bars.push({ panel, case: label, limiter: 'rate-limiter-flexible', value: r.rlf });
    }
    for (const r of core.peers?.rows ?? []) {
      if (r.kind !== 'rate') continue;
      for (const f of r.figures)
        bars.push({ panel, case: `every peer: ${r.label}`, limiter: f.name, value: f.median });
    }
  }
  if (redis !== undefined) {
    const panel = `Redis: decisions/s, one client, ${redis.config.inFlight} in flight (medians)`;
    for (const r of redis.throughput) {
      const label = `GCRA, ${count(redis.config.keys)} keys${r.autoPipelining ? ', auto-pipelining' : ''}`;
      bars.push({
        panel,
        case: label,
        limiter: r.sluice ? 'sluice' : 'rate-limiter-flexible',
        value: r.rate,
      });
    }
    bars.push({
      panel,
      case: 'redis-benchmark EVALSHA -P 16 (ceiling)',
      limiter: 'redis-benchmark',
      value: redis.ceiling.rate,
    });
    bars.push({
      panel,
      case: "redis-benchmark EVALSHA 'return 1' -P 16",
      limiter: 'redis-benchmark',
      value: redis.noopCeiling.rate,
    });
    for (const r of redis.scale?.rows ?? []) {
      const label = `GCRA, ${count(r.keys)} resident keys, auto-pipelining`;
      bars.push({ panel, case: label, limiter: 'sluice', value: r.sluice });
      bars.push({ panel, case: label, limiter: 'rate-limiter-flexible', value: r.rlf });
    }
  }
  return bars;
}

/**
 * The chart is drawn at the width the site shows it (the 624 px text column), so its 12 px
 * labels are 12 px on screen; a case label is wrapped into lines of at most
 * {@link LINE_CHARS} characters, at its commas.
 */
const CHART_PX = 624;
const FONT_PX = 12;
const LINE_CHARS = 30;
/** Where a case label breaks (`|`: an axis label can have several lines). */
const BREAK = '|';

/**
 * `label` in lines of at most {@link LINE_CHARS} characters (a longer word stays whole),
 * broken after `, ` or `: ` where it can, else between words; lines joined by {@link BREAK}.
 */
export function wrapLabel(label: string): string {
  // A part still too long (no comma in it) breaks between words.
  const parts = label
    .split(/(?<=, |: )/)
    .flatMap((p) => (p.length > LINE_CHARS ? p.split(/(?<= )/) : [p]));
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines.at(-1);
    if (last !== undefined && (last + part).trimEnd().length <= LINE_CHARS)
      lines[lines.length - 1] = last + part;
    else lines.push(part);
  }
  return lines.map((l) => l.trimEnd()).join(BREAK);
}

export function chartSpec(input: ReportInput): TopLevelSpec {
  const m = input.run.machine;
  return chartSpecOf(
    chartBars(input),
    `sluice vs peers, ${input.run.date.slice(0, 10)}, ${m.cores} cores (${m.cpu})`,
  );
}

/** The chart of `bars`: one panel per `panel`, in the order the bars come. */
export function chartSpecOf(bars: readonly Bar[], title: string): TopLevelSpec {
  // Each bar's place within its case, so a case shows only its own limiters, without gaps.
  const slotted = bars.map((b, i, all) => ({
    ...b,
    case: wrapLabel(b.case),
    slot: all.slice(0, i).filter((x) => x.panel === b.panel && x.case === b.case).length,
  }));
  const panels = [...new Set(slotted.map((b) => b.panel))];
  const shown = LIMITERS.filter(([name]) => slotted.some((b) => b.limiter === name));
  const labelPx = Math.ceil(0.56 * FONT_PX * LINE_CHARS);
  const color = {
    field: 'limiter',
    type: 'nominal' as const,
    title: null,
    scale: { domain: shown.map(([name]) => name), range: shown.map(([, c]) => c) },
    legend: { orient: 'top' as const, columns: 2, symbolType: 'square' },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    background: 'white',
    padding: 8,
    config: {
      font: 'Helvetica, Arial, sans-serif',
      axis: { labelFontSize: FONT_PX, titleFontSize: FONT_PX, labelLimit: labelPx + 20 },
      legend: { labelFontSize: FONT_PX, labelLimit: 200 },
      title: { fontSize: FONT_PX + 1, anchor: 'start', frame: 'group' },
    },
    vconcat: panels.map((panel) => ({
      title: panel,
      data: { values: slotted.filter((b) => b.panel === panel) },
      // The bars: the drawing's width less the labels and the padding.
      width: CHART_PX - labelPx - 50,
      height: { step: 14 },
      mark: { type: 'bar' as const, tooltip: true },
      encoding: {
        y: {
          field: 'case',
          type: 'nominal' as const,
          title: null,
          sort: null,
          axis: { labelExpr: `split(datum.label, '${BREAK}')` },
        },
        yOffset: { field: 'slot', type: 'ordinal' as const },
        x: {
          field: 'value',
          type: 'quantitative' as const,
          title: panel.startsWith(HTTP_PANEL) ? 'requests/s' : 'decisions/s',
          axis: { format: '~s' },
        },
        color,
      },
    })),
    resolve: { scale: { x: 'independent' } },
  };
}

/**
 * The width of `text` in Helvetica/Arial, about 0.56 em a character: vega in Node has no
 * canvas to measure with and guesses 0.8 em, which drew every label half as long again and
 * the chart as much wider than it is.
 */
function textWidth(item: { fontSize?: number }, text: unknown): number {
  return 0.56 * (item.fontSize ?? 11) * String(text ?? '').length;
}

/** The chart as SVG, rendered by vega (no browser, no canvas). */
export async function renderChart(input: ReportInput): Promise<string> {
  return renderSpec(chartSpec(input));
}

/** `spec` as SVG. */
export async function renderSpec(spec: TopLevelSpec): Promise<string> {
  // vega exports textMetrics (vega-scenegraph's) without a type for it.
  (vega as unknown as { textMetrics: { width: typeof textWidth } }).textMetrics.width = textWidth;
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return `${svg}\n`;
}

// ---------------------------------------------------------------------------------------
// The note.

/**
 * The full results, `bench/results.md` (in the repository, not on the site: the site shows
 * the summary of page.ts).
 */
export function renderResults(input: ReportInput): string {
  const { run, core, redis, http } = input;
  const m = run.machine;
  const out: string[] = [];
  // One paragraph per argument; consecutive list items stay one list.
  const p = (...blocks: string[]) => {
    blocks.forEach((block, i) => {
      out.push(block);
      const next = blocks[i + 1];
      if (!(block.startsWith('- ') && next?.startsWith('- '))) out.push('');
    });
  };

  p(
    '# Benchmark results',
    'Every figure of one `pnpm bench` run, with the targets and what explains each gap. The documentation site shows the summary (docs/benchmarks.md, written by the same run).',
    `Reproduce (from the repository root, on a quiet machine): ${code(`pnpm install --frozen-lockfile && ${run.command}`)}`,
    `Generated by that command on ${run.date} (UTC), in ${(run.totalSeconds / 60).toFixed(1)} minutes ` +
      `(${run.parts.map((x) => `${x.name} ${x.seconds.toFixed(0)} s`).join(', ')}${run.totalSeconds > 600 ? '; **over the 10-minute budget**' : ''}). ` +
      'Every figure below is from that one run: medians of interleaved rounds (sluice and its peer measured A B A B …), every round listed beside the median. ' +
      'Compare ratios, not absolute figures: the absolute ones depend on the machine and on whatever else it was running.',
  );
  if (run.quick)
    p(
      '> **Smoke run (`--quick`)**: one short round per figure. These figures only show that the suite works; run `pnpm bench` for figures.',
    );

  p('## Machine');
  p(
    table(
      ['', ''],
      [
        ['cores', String(m.cores)],
        ['CPU', m.cpu],
        ['memory', `${m.memGiB.toFixed(0)} GiB`],
        ['OS', m.os],
        ['Node', m.node],
        [
          'Redis',
          `redis-server ${m.redis} (started by the bench on 127.0.0.1, a free port, no persistence)`,
        ],
        ['date', run.date],
        [
          'load average (1/5/15 min) before / after',
          `${m.loadBefore.map((x) => x.toFixed(2)).join(' ')} / ${m.loadAfter.map((x) => x.toFixed(2)).join(' ')}`,
        ],
      ],
    ),
  );
  if (m.loadBefore[0]! > 0.5)
    p(
      `The 1-minute load average was ${m.loadBefore[0]!.toFixed(2)} before the run started: other processes were sharing the ${m.cores} cores, so absolute figures are lower and the rounds noisier than on a quiet machine (see the per-round values).`,
    );
  p(
    table(
      ['part', 'command (in bench/)', 'seconds', 'exit code'],
      run.parts.map((x) => [
        x.name,
        code(x.command),
        x.seconds.toFixed(0),
        `${x.exitCode}${x.exitCode === 1 ? ' (a verdict failed)' : ''}`,
      ]),
    ),
  );

  // --- summary: the Redis path and the memory store, as the Redis-path issue measured them ---
  p(
    '## Summary: the Redis path and the memory store',
    'sluice against the best peer of each row in this run (every peer and every round are in the sections below). ' +
      "HTTP: limited / unlimited req/s of the same framework, and the limiter's own server CPU per request.",
    table(
      ['case', 'sluice', 'best peer in the same run', 'goal', 'verdict'],
      summaryRows(core, redis, http),
    ),
  );
  // Where the time goes on the Redis path, and what changed (hand-written, kept beside the bench).
  const profile = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'profile.md');
  if (existsSync(profile)) p(readFileSync(profile, 'utf8').trim());

  // --- targets ---
  p('## Targets: floor and aim of each figure');
  const targets = httpTargets(
    http,
    run.parts.some((x) => x.name === 'http'),
  );
  if (core !== undefined) targets.push(...coreTargets(core));
  else targets.push({ ...notRun('core (memory store) rows') });
  if (redis !== undefined) targets.push(...redisTargets(redis));
  else targets.push({ ...notRun('Redis rows') });
  p(
    table(
      ['target', 'measured', 'floor (must)', 'aim', 'verdict', 'gap'],
      targets.map((t) => [t.target, t.measured, t.floor, t.aim, t.verdict, t.gap]),
    ),
  );
  // The causes of the gaps, from profiles and A/B runs (hand-written, kept beside the bench).
  const gaps = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'gaps.md');
  if (existsSync(gaps)) p(readFileSync(gaps, 'utf8').trim());

  // --- core ---
  if (core !== undefined) {
    p('## Core: memory store', `Command: ${code(partCommand(run, 'core'))}`);
    p(
      'Configuration:',
      `- sluice: ${core.config.sluice}`,
      `- peer: ${core.config.rlf}`,
      `- ${core.config.rounds} interleaved rounds of ~${core.config.ms} ms per figure, after an unmeasured warm-up pass; "${count(core.config.keys)} keys": pre-built keys ${code('user:<i>')} taken round robin; rows without "in flight" await each decision before the next; "256 in flight" rows keep ${core.config.inFlight} calls outstanding (Promise.all per ${core.config.inFlight}). The limits never deny.`,
      '- "extra" rows show where the time goes: an await of a constant decision (the ceiling of any promise-returning limiter) and the synchronous MemoryStore.consume without RateLimiter or promise, each beside RLF again.',
    );
    p(
      table(
        [
          'decisions/s',
          'sluice',
          'RLF',
          'sluice / RLF',
          'target',
          'verdict',
          'rounds, M/s (sluice | RLF)',
        ],
        core.throughput.map((r) => [
          r.label,
          mps(r.sluice),
          mps(r.rlf),
          ratio(r.ratio),
          r.target === undefined ? '-' : `>= ${r.target}x RLF`,
          r.verdict,
          `${rounds(r.sluiceRounds, 1e6, 2)} | ${rounds(r.rlfRounds, 1e6, 2)}`,
        ]),
      ),
    );
    p(
      `Heap bytes per key, ${count(core.config.keys)} keys: (heapUsed + arrayBuffers) delta around building the store, each side read after ${code('global.gc()')} once it stops shrinking (three readings 10 ms apart none lower by over 64 KiB: a closure being optimised in the background can hold a store let go just before), divided by the key count. "Store overhead": the key strings exist before the baseline and are handed to the store as they are; "incl. key text": keys built during insertion and held only by the limiter (sluice prefixes ${code('sluice:')}, RLF ${code('rlflx:')}).`,
    );
    const rlfHeap = core.heap.find((h) => h.name === 'rate-limiter-flexible');
    p(
      table(
        [
          'heap per key',
          'store overhead',
          'incl. key text',
          'vs RLF (overhead)',
          'target',
          'verdict',
        ],
        core.heap.map((h) => [
          h.name,
          bytes(h.overhead),
          bytes(h.withKeys),
          rlfHeap === undefined || h === rlfHeap ? '-' : ratio(h.overhead / rlfHeap.overhead),
          h.target === undefined ? '-' : `<= ${h.target} B`,
          h.verdict,
        ]),
      ),
    );
    if (core.peers !== undefined) {
      const peers = core.peers;
      const names = peers.subjects.map((x) => x.name);
      p(
        '### Core: sluice vs every peer',
        `Command: ${code(partCommand(run, run.parts.some((x) => x.name === 'peers') ? 'peers' : 'core'))}: a process of its own, so what the sections above ran (fixed windows, other stores) leaves nothing in the JIT state of the subjects compared here (in the core process, after them, the same awaited sluice decision is the "RateLimiter.consume (awaited): GCRA" rows above).`,
        'Configuration (the measured call of each, and how the keys it holds were checked after the heap measure):',
        ...peers.subjects.map(
          (x) => `- ${x.name}: ${code(x.call)}; keys held checked by ${x.counted}`,
        ),
        `- decisions/s: the subjects interleaved (${names.join(', ')}, then again) in ${peers.rounds} rounds of ~${peers.ms} ms per figure, after an unmeasured warm-up pass that also fills every store; each decision awaited before the next; "${count(peers.keys)} keys": pre-built keys ${code('user:<i>')} round robin. Every limit is 1e12 per 60 s window (sluice: the GCRA above), never reached: a denial aborts the run.`,
        `- heap: (heapUsed + arrayBuffers) delta around building the limiter, read as above, divided by the key count; keys ${code('user:<i>')} built during insertion and held only by the limiter (its key text included, with whatever prefix it adds); one measure per subject and size; sluice with the resident GCRA its line names (T = 1 h: every key stays live for the count check) and maxKeys = the key count.`,
      );
      p(
        table(
          ['', ...names, 'target (sluice)', 'verdict', 'gap', `rounds (${names.join(' | ')})`],
          peers.rows.map((r) => [
            r.label,
            ...r.figures.map((f) => peerValue(r, f.median)),
            r.target ?? '-',
            r.verdict,
            r.gap,
            r.figures
              .map((f) => (r.kind === 'rate' ? rounds(f.rounds, 1e6, 2) : rounds(f.rounds, 1, 1)))
              .join(' | '),
          ]),
        ),
      );
    }
    if (core.scale !== undefined) {
      const s = core.scale;
      p(
        '### Memory store at scale',
        `sluice: RateLimiter + MemoryStore({ maxKeys: keys }) with ${code(s.config)} (T = 1 h, so every key's state outlives the run and all keys stay resident; the store's live key count is checked to equal the key count after the run). Peer: RLF as above. Every key consumed once before measuring; then ${s.rounds} interleaved rounds of ~${core.config.ms} ms, each decision on the next key round robin, awaited one at a time; "store.consume" is the synchronous store alone. Heap: store overhead per key, as above, measured at each size.`,
      );
      p(
        table(
          [
            'keys',
            'sluice',
            'RLF',
            'sluice / RLF',
            'ns/decision (sluice | RLF)',
            'store.consume (sync)',
            'heap B/key sluice',
            'heap B/key RLF',
            'heap vs RLF',
            'rounds, M/s (sluice | RLF | store)',
          ],
          s.rows.map((r) => [
            count(r.keys),
            mps(r.sluice),
            mps(r.rlf),
            ratio(r.sluice / r.rlf),
            `${ns(r.sluice)} | ${ns(r.rlf)}`,
            `${mps(r.store)} (${ns(r.store)})`,
            bytes(r.heapSluice),
            bytes(r.heapRlf),
            ratio(r.heapSluice / r.heapRlf),
            `${rounds(r.sluiceRounds, 1e6, 2)} | ${rounds(r.rlfRounds, 1e6, 2)} | ${rounds(r.storeRounds, 1e6, 2)}`,
          ]),
        ),
      );
      p(
        `Decisions/s at ${count(s.rows.at(-1)!.keys)} keys / at ${count(s.rows[0]!.keys)}: sluice ${s.flatness.sluice.toFixed(2)}, store.consume ${s.flatness.store.toFixed(2)}, RLF ${s.flatness.rlf.toFixed(2)}. Flat here means >= ${s.flatMinRatio} (cost per decision within 1.25x): ${s.verdict}.`,
      );
    }
  }

  // --- redis ---
  if (redis !== undefined) {
    p('## Redis', `Command: ${code(partCommand(run, 'redis'))}`);
    const t = redis.config.targets;
    p(
      'Configuration:',
      `- sluice: ${redis.config.sluice}`,
      ...redis.config.peers.map((x) => `- peer: ${x.config}`),
      `- decisions/s: sluice and RLF (the other peers are in the memory rows and in the HTTP section); one ioredis connection per subject, ${redis.config.inFlight} consumes in flight (one async worker per slot), ${count(redis.config.keys)} keys round robin; ${redis.config.rounds} interleaved rounds of ~${redis.config.ms} ms after an unmeasured warm-up; with and without ioredis ${code('enableAutoPipelining')}. The limits never deny.`,
      `- ceiling, run once per round in the same run: ${code(redis.config.ceiling)}: the most single-decision calls of sluice's own GCRA script the server takes, pipelined 16 deep; and ${code(redis.config.noopCeiling)}, the same call of a script that only returns 1: what any script call costs the server, so the difference is the GCRA script's own work.`,
      `- verdicts (sluice): >= ${t.vsRlfAuto}x RLF auto-pipelined; >= ${pct(t.ofCeiling)} of the GCRA ceiling; auto-pipelined: no slower than without, i.e. its median >= ${t.autoOfPlain}x the plain median (${pct(1 - t.autoOfPlain)} for round-to-round noise). Each is PASS or FAIL and a FAIL fails the part.`,
    );
    const rlfAuto = redis.throughput.find((r) => !r.sluice && r.autoPipelining);
    const gcraUs = 1e6 / redis.ceiling.rate;
    const noopUs = 1e6 / redis.noopCeiling.rate;
    p(
      table(
        [
          'decisions/s',
          'rate',
          'RLF auto-pipelined beside it',
          'ratio',
          'of EVALSHA ceiling',
          'auto / plain',
          'verdict',
          'rounds, k/s',
        ],
        [
          ...redis.throughput.map((r) => [
            r.label,
            kps(r.rate),
            rlfAuto === undefined ? '-' : kps(rlfAuto.rate),
            ratio(r.vsRlfAuto),
            pct(r.ofCeiling),
            r.ofPlain === null ? '-' : ratio(r.ofPlain),
            r.verdict,
            rounds(r.rounds, 1e3, 1),
          ]),
          [
            'ceiling: redis-benchmark -P 16, EVALSHA gcra',
            kps(redis.ceiling.rate),
            '-',
            '-',
            '100%',
            '-',
            '(info)',
            rounds(redis.ceiling.rounds, 1e3, 1),
          ],
          [
            "redis-benchmark -P 16, EVALSHA 'return 1', the same arguments",
            kps(redis.noopCeiling.rate),
            '-',
            '-',
            pct(redis.noopCeiling.rate / redis.ceiling.rate),
            '-',
            '(info)',
            rounds(redis.noopCeiling.rounds, 1e3, 1),
          ],
        ],
      ),
    );
    p(
      `Per call, the server spends ${gcraUs.toFixed(2)} µs on the GCRA script call and ${noopUs.toFixed(2)} µs on a script call that does nothing: ${(gcraUs - noopUs).toFixed(2)} µs (${pct((gcraUs - noopUs) / gcraUs)}) is the GCRA script's own work. sluice can pass the ceiling: it coalesces concurrent decisions into one script call.`,
    );
    p(
      'Bytes per key: `MEMORY USAGE` of what one decision of each limiter writes (FLUSHDB, one decision on `user:1`, then every key the server holds, as stored; a reply of null or 0 fails the run).',
      table(
        ['MEMORY USAGE, one decision', 'Redis key(s)', 'bytes', 'verdict (<= 100 B; aim <= 56 B)'],
        redis.memory.map((x) => [x.label, code(x.key), `${x.bytes} B`, x.verdict]),
      ),
    );
    if (redis.peerMemory !== undefined) {
      const m = redis.peerMemory;
      const sluice = m.rows.find((r) => r.sluice)!;
      p(
        `### Redis used_memory per subject, every peer (${count(m.keys)} subjects)`,
        `Per limiter and round: FLUSHDB, then each of ${count(m.keys)} subjects ${code('user:<i>')} consumed once (${m.fillInFlight} calls in flight, a client of its own with auto-pipelining, closed before the second reading), INFO memory ${code('used_memory')} before and after (read once it stops moving: a dictionary that grew is rehashed incrementally), delta / subjects; DBSIZE after each fill (keys/subject); ${m.rounds} interleaved rounds after an unmeasured fill of a tenth as many, medians. sluice runs its resident GCRA (T = 1 h, so every key stays); the peers as configured above (60 s windows, far longer than a fill). The key text is part of the figure (example keys below).`,
      );
      p(
        table(
          [
            'limiter',
            'B/subject',
            'vs sluice',
            'keys (DBSIZE)',
            'keys/subject',
            'example key',
            'fill s',
            'rounds, B',
          ],
          m.rows.map((r) => [
            r.label,
            bytes(r.bytesPerKey),
            r.sluice ? '-' : ratio(r.bytesPerKey / sluice.bytesPerKey),
            count(r.dbsize),
            r.keysPerSubject.toFixed(2),
            code(r.exampleKey),
            r.fillSeconds.toFixed(1),
            rounds(r.rounds, 1, 1),
          ]),
        ),
      );
      p(
        `sluice <= the best peer (${m.best}, + ${m.toleranceB} B, the spread between fills of one limiter): ${m.verdict} (sluice ${bytes(sluice.bytesPerKey)}).`,
      );
    }
    if (redis.scale !== undefined) {
      const s = redis.scale;
      p(
        '### Redis at scale',
        `sluice: RedisStore with ${code(s.config)} (T = 1 h: every key stays in Redis; the server's DBSIZE is checked after each fill), RLF as above, both with auto-pipelining. Per size: FLUSHDB, then each limiter consumes every key once with ${s.fillInFlight} calls in flight (sluice coalesces them into batched EVALSHA calls), INFO memory ${code('used_memory')} read before and after each fill (delta / keys, so it includes the server's dictionary and expiry overhead, unlike MEMORY USAGE); then ${s.rounds} interleaved rounds of ~${s.ms} ms, ${redis.config.inFlight} in flight over all keys round robin.`,
      );
      p(
        table(
          [
            'keys',
            'sluice',
            'RLF',
            'sluice / RLF',
            'used_memory B/key sluice',
            'used_memory B/key RLF',
            'fill seconds (sluice | RLF)',
            'rounds, k/s (sluice | RLF)',
          ],
          s.rows.map((r) => [
            count(r.keys),
            kps(r.sluice),
            kps(r.rlf),
            ratio(r.sluice / r.rlf),
            bytes(r.memSluice),
            bytes(r.memRlf),
            `${r.fillSluice.toFixed(1)} | ${r.fillRlf.toFixed(1)}`,
            `${rounds(r.sluiceRounds, 1e3, 1)} | ${rounds(r.rlfRounds, 1e3, 1)}`,
          ]),
        ),
      );
      p(
        `Decisions/s at ${count(s.rows.at(-1)!.keys)} keys / at ${count(s.rows[0]!.keys)}: sluice ${s.flatness.sluice.toFixed(2)}, RLF ${s.flatness.rlf.toFixed(2)}. Flat here means >= ${s.flatMinRatio}: ${s.verdict}. At ${count(s.rows[0]!.keys)} keys the used_memory delta is small next to the server's own allocations, so that row's bytes per key is the least precise.`,
      );
    }
  }

  // --- http ---
  p('## HTTP', `Command: ${code(partCommand(run, 'http'))}`);
  if (http !== undefined) {
    const c = http.config;
    p(
      'Configuration:',
      `- sluice: ${c.sluice}`,
      `- peers: ${c.peers}`,
      `- a hello-world route per framework, one server process each (${c.pinning}); autocannon, ${c.connections} connections to 127.0.0.1, ${c.duration} s per measurement after a ${c.warmup} s warm-up, ${c.rounds} interleaved rounds (unlimited, sluice and the peers of a case measured one after the other in every round), medians.`,
      ...(c.redis === null
        ? []
        : [
            `- Redis cases: redis-server ${c.redis.version} started by the bench on 127.0.0.1:${c.redis.port} (no persistence, ${c.redis.pinning}); ${c.redis.client}.`,
          ]),
      `- ratio: median over rounds of limited / unlimited req/s, each pair from the same round; Δµs: the limiter's own server CPU per request (limited minus unlimited, process.cpuUsage()); CPU ratio: unlimited / limited CPU per request, what the req/s ratio is when the server is CPU-bound. Load average (1 min) ${c.loadStart[0]!.toFixed(2)} at the start, ${c.loadEnd[0]!.toFixed(2)} at the end.`,
    );
    p(
      table(
        [
          'case',
          'peer',
          'req/s unlimited',
          'req/s sluice',
          'req/s peer',
          'sluice / unlimited',
          'peer / unlimited',
          'sluice / peer',
          'Δµs sluice | peer',
          'CPU ratio sluice | peer',
          'verdict (req/s; CPU)',
        ],
        http.cases.flatMap((x) => {
          const { base, sluice, peers } = sides(x);
          return peers.map((peer, i) => [
            i === 0 ? x.title : '',
            peer.limiter,
            rps(base.rps),
            rps(sluice.rps),
            rps(peer.rps),
            sluice.ratio!.toFixed(3),
            peer.ratio!.toFixed(3),
            ratio(sluice.rps / peer.rps),
            `${us(sluice.deltaUs!)} | ${us(peer.deltaUs!)}`,
            `${sluice.cpuRatio!.toFixed(3)} | ${peer.cpuRatio!.toFixed(3)}`,
            i === 0 ? `${x.verdict}; ${x.cpuVerdict}` : '',
          ]);
        }),
      ),
    );
    p(
      'Every server, every round ("Redis calls/req": script calls (EVAL, EVALSHA, FCALL) the redis-server took during the measurement / responses; sluice coalesces concurrent decisions into batched script calls, and with prefetch decides most requests from units fetched ahead; "Redis CPU µs/req": the redis-server\'s CPU (INFO cpu) over the measurement / responses, and the decisions/s one Redis core serves at that cost):',
      table(
        [
          'case',
          'limiter',
          'rounds, req/s',
          'rounds, ratio',
          'rounds, CPU µs/req',
          'server busy',
          'Redis calls/req',
          'Redis CPU µs/req (decisions/s per Redis core)',
          'first response',
        ],
        http.cases.flatMap((x) =>
          x.rows.map((r, i) => [
            i === 0 ? x.title : '',
            r.limiter,
            r.rpsRounds.map(rps).join(' '),
            r.ratioRounds?.map((v) => v.toFixed(3)).join(' ') ?? '-',
            r.cpuUsRounds.map((v) => v.toFixed(1)).join(' '),
            pct(r.busy),
            r.redisCalls === null ? '-' : r.redisCalls.toFixed(3),
            r.redisCpuUs == null
              ? '-'
              : `${r.redisCpuUs.toFixed(2)} (${Math.round(1e6 / r.redisCpuUs).toLocaleString('en-US')})`,
            r.probe,
          ]),
        ),
      ),
    );
    p(
      `bench:http overall: ${http.overall.rps} on req/s ratios, ${http.overall.cpu} on CPU ratios.`,
    );
  } else if (run.parts.some((x) => x.name === 'http'))
    p(
      'bench:http wrote no JSON (it failed before the end): its output is in bench/results/http.txt.',
    );
  else p('Not run.');

  // --- give-backs and leases ---
  p('## Give-backs and concurrency leases');
  const outcome = input.outcome;
  if (outcome !== undefined) {
    p(
      `${code(partCommand(run, 'outcome'))}: requests/s of one request's store work, RateLimiter on the memory store (one call at a time) and on Redis (64 in flight): **allow** = one charge (the path of every request); **refund** = a charge then its give-back (a request \`skipSuccessfulRequests\` gives back); **lease** = a concurrency lease taken and released. Median of ${outcome.rounds} interleaved rounds of ${outcome.ms} ms.`,
      table(
        ['path', 'store', 'requests/s', 'vs allow', 'rounds'],
        outcome.rows.map((r) => {
          const allow = outcome.rows.find((x) => x.store === r.store && x.path === 'allow')!;
          return [
            r.path,
            r.store,
            rps(r.median),
            ratio(r.median / allow.median),
            rounds(r.rounds, 1e3, 1),
          ];
        }),
      ),
    );
  } else p('Not run.');

  // --- chart ---
  p(
    '## Chart',
    `![requests/s and decisions/s per limiter](${input.chartFile})`,
    'Made with vega-lite + vega (rendered to SVG in Node) from the figures above: requests/s per framework and limiter (bench:http), then decisions/s of the memory store and of Redis (bench:core, bench:redis).',
  );
  return `${out.join('\n').trimEnd()}\n`;
}

function notRun(what: string): TargetRow {
  return {
    target: what,
    measured: 'not run',
    floor: '-',
    aim: '-',
    verdict: 'NOT MEASURED',
    gap: '-',
  };
}

function partCommand(run: RunInfo, name: PartRun['name']): string {
  return run.parts.find((x) => x.name === name)?.command ?? '(not run)';
}
