/**
 * The prefetch plot of docs/guide/features/prefetch.md: admitted requests over time, 4
 * processes on one Redis key, without and with prefetch, from a real run
 * (data/prefetch-timeline.json, written by `pnpm bench:prefetch-timeline`), against the
 * quota (burst + rate x t). Rendered to SVG by vega-lite + vega in Node, in both widths and
 * themes, as plots.ts.
 */
import { readFileSync } from 'node:fs';
import { linePlot, THEMES, writeThemed } from './plot-theme.js';

/** What `pnpm bench:prefetch-timeline` writes. */
interface Timeline {
  date: string;
  config: {
    processes: number;
    offeredPerProcess: number;
    seconds: number;
    rate: number;
    burst: number;
    prefetch: { units: number; ttl: string };
    redis: string;
  };
  runs: { prefetch: boolean; admitted: number[][]; offered: number; scriptCalls: number }[];
}

/** A legend label "<what>: <figures>" as two lines, split at its last ': '. */
const TWO_LINES =
  "[substring(datum.label, 0, lastindexof(datum.label, ': ')), substring(datum.label, lastindexof(datum.label, ': ') + 2)]";

/** Cumulative admissions of a run every `step` ms (all processes together). */
function cumulative(admitted: number[][], seconds: number, step: number): [number, number][] {
  const all = admitted.flat().sort((a, b) => a - b);
  const out: [number, number][] = [];
  let i = 0;
  for (let t = 0; t <= seconds * 1000; t += step) {
    while (i < all.length && all[i]! <= t) i++;
    out.push([t, i]);
  }
  return out;
}

/**
 * Writes `prefetch.svg` and its phone and dark variants (plot-theme.ts) into `outDir` from
 * `dataFile`; returns the files written.
 */
export async function writePrefetchPlot(outDir: string, dataFile: string): Promise<string[]> {
  const data = JSON.parse(readFileSync(dataFile, 'utf8')) as Timeline;
  const { config } = data;
  const rows: object[] = [];
  for (const run of data.runs) {
    const total = run.admitted.reduce((s, a) => s + a.length, 0);
    const name = run.prefetch
      ? `with prefetch { units: ${config.prefetch.units}, ttl: '${config.prefetch.ttl}' }: ${total} admitted, ${run.scriptCalls} script calls`
      : `without prefetch: ${total} admitted, ${run.scriptCalls} script calls`;
    for (const [t, n] of cumulative(run.admitted, config.seconds, 20)) {
      rows.push({ s: t / 1000, admitted: n, series: name });
    }
  }
  const quota = `quota: burst ${config.burst} + ${config.rate}/s x t`;
  for (let t = 0; t <= config.seconds * 1000; t += 100) {
    rows.push({ s: t / 1000, admitted: config.burst + (config.rate * t) / 1000, series: quota });
  }
  const title = `Admitted over time: ${config.processes} processes, one Redis key`;
  const offered = `each process offers ${config.offeredPerProcess} requests/s`;
  const gcra = `GCRA ${config.rate}/s, burst ${config.burst}`;
  const where = `redis-server ${config.redis}, ${data.date}`;
  const wide = { text: [title], subtitle: [`${offered}; ${gcra}; ${where}`] };
  const narrow = {
    text: ['Admitted over time:', `${config.processes} processes, one Redis key`],
    subtitle: [`${offered};`, `${gcra};`, where],
  };
  const files = await writeThemed(outDir, 'prefetch', (size, theme) => {
    const c = THEMES[theme];
    return linePlot(size, theme, size === 'narrow' ? narrow : wide, rows, {
      y: {
        field: 'admitted',
        type: 'quantitative',
        title: size === 'narrow' ? 'admitted so far' : 'admitted so far (all processes)',
      },
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        // alphabetical: quota (dashed grey), with prefetch, without prefetch
        scale: { range: [c.grey, c.green, c.blue] },
        // A series name is "<what>: <figures>": on a phone, two lines (at the last ': ').
        legend: size === 'narrow' ? { labelExpr: TWO_LINES } : {},
      },
      strokeDash: {
        field: 'series',
        type: 'nominal',
        legend: null,
        scale: {
          range: [
            [4, 4],
            [1, 0],
            [1, 0],
          ],
        },
      },
    });
  });
  return files;
}
