// bench:http:inproc's figures as the pages show them (its section, its `overall:` line, its chart
// bars): the CPU each limiter adds to a request, over the unlimited server and over the floor
// (the `headers` variant: a middleware that only sets the three X-RateLimit-* headers).
import type { Framework } from '../cases/http-cases.js';
import { median, quantile } from '../measure/common.js';
import type { InprocReport, InprocRow } from './types.js';

/** The floor every limiter is measured over: the cost of writing its headers alone. */
export const FLOOR_VARIANT = 'headers';

/** `+12` / `-3`: a signed whole number of ns. */
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(0)}`;

/** The per-round paired Δ of `row` over `base` (same round, same load): median, quartiles. */
function pairedOver(row: InprocRow, base: InprocRow) {
  const d = row.batches.map((ns, r) => ns - base.batches[r]!);
  return { median: median(d), q1: quantile(d, 0.25), q3: quantile(d, 0.75) };
}

/** A framework's rows and its floor (`undefined` when the run left the `headers` variant out). */
function sides(rows: InprocRow[]) {
  return { floor: rows.find((r) => r.variant === FLOOR_VARIANT), base: rows[0]! };
}

/** The Δ of `row` over the floor, `-` for the unlimited server, the floor itself, or no floor. */
function overFloor(row: InprocRow, floor: InprocRow | undefined): string {
  if (floor === undefined || row === floor || row.variant === 'none') return '-';
  const p = pairedOver(row, floor);
  return `${signed(p.median)} [${signed(p.q1)}, ${signed(p.q3)}]`;
}

/** The values templates/inproc.md names. */
export function inprocView(report: InprocReport, command: string) {
  const frameworks = Object.entries(report.results) as [Framework, InprocRow[]][];
  return {
    command,
    batch: report.batch,
    rounds: report.rounds,
    pinned: report.pinned ? 'pinned to core 1' : 'not pinned',
    loadStart: report.load[0].toFixed(2),
    loadEnd: report.load[1].toFixed(2),
    rows: frameworks.flatMap(([framework, rows]) => {
      const { floor, base } = sides(rows);
      return rows.map((r, i) => {
        const none = r === base;
        const p = pairedOver(r, base);
        return {
          framework: i === 0 ? `${framework} (HTTP ${report.httpUs[framework]} µs)` : '',
          label: r.label,
          ns: r.meanNs.toFixed(0),
          delta: none ? '-' : signed(r.deltaNs),
          paired: none ? '-' : `${signed(p.median)} [${signed(p.q1)}, ${signed(p.q3)}]`,
          floor: overFloor(r, floor),
          ratio: none ? '-' : r.ratio.toFixed(3),
          httpRatio: none ? '-' : r.httpRatio.toFixed(3),
          probe: r.probe,
        };
      });
    }),
  };
}

/**
 * The part's `overall:` line: for information (no target), each framework's sluice and peer Δ
 * over the floor, the paired medians.
 */
export function inprocVerdict(report: InprocReport): string {
  const parts = (Object.entries(report.results) as [Framework, InprocRow[]][]).map(([f, rows]) => {
    const { floor } = sides(rows);
    const say = (variant: string) => {
      const r = rows.find((x) => x.variant === variant);
      return r === undefined || floor === undefined
        ? undefined
        : `${r.label} ${signed(pairedOver(r, floor).median)} ns`;
    };
    return `${f}: ${[say('sluice'), say('peer')].filter((x) => x !== undefined).join(', ') || 'no floor measured'}`;
  });
  return `(info) in-process CPU over the headers-only floor: ${parts.join('; ')}`;
}

/** The chart's bars: per framework, sluice's, the peer's and the floor's mean CPU ns over unlimited. */
export function inprocBars(
  report: InprocReport,
): { case: string; limiter: string; value: number }[] {
  return (Object.entries(report.results) as [Framework, InprocRow[]][]).flatMap(([f, rows]) =>
    rows
      .filter((r) => r.variant === 'sluice' || r.variant === 'peer' || r.variant === FLOOR_VARIANT)
      .map((r) => ({
        case: `${FRAMEWORK_NAMES[f] ?? f}, memory, in-process`,
        limiter: r.label,
        value: r.deltaNs,
      })),
  );
}

/** How the chart names each framework. */
const FRAMEWORK_NAMES: Partial<Record<Framework, string>> = {
  express: 'Express',
  fastify: 'Fastify',
  koa: 'Koa',
  hono: 'Hono on Node',
};
