/**
 * The prefetch plot of docs/guide/features/prefetch.md: admitted requests over time, 4
 * processes on one Redis key, without and with prefetch, from a real run
 * (data/prefetch-timeline.json, written by `pnpm bench:prefetch-timeline`), against the
 * quota (burst + rate x t). Rendered to SVG by vega-lite + vega in Node, as plots.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

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

/** Writes `prefetch.svg` into `outDir` from `dataFile`; returns the file written. */
export async function writePrefetchPlot(outDir: string, dataFile: string): Promise<string> {
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
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `Admitted over time: ${config.processes} processes, one Redis key`,
      subtitle: `each process offers ${config.offeredPerProcess} requests/s; GCRA ${config.rate}/s, burst ${config.burst}; redis-server ${config.redis}, ${data.date}`,
    },
    width: 600,
    height: 300,
    background: 'white',
    config: { font: 'Inter, system-ui, sans-serif', view: { stroke: '#ddd' } },
    data: { values: rows },
    mark: { type: 'line', interpolate: 'step-after' },
    encoding: {
      x: { field: 's', type: 'quantitative', title: 'time (s)' },
      y: { field: 'admitted', type: 'quantitative', title: 'admitted so far (all processes)' },
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        scale: { range: ['#888', '#2a9d4b', '#1f6fb2'] },
        legend: { orient: 'bottom', direction: 'vertical', labelLimit: 600 },
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
    },
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const file = path.join(outDir, 'prefetch.svg');
  writeFileSync(file, await view.toSVG());
  view.finalize();
  return file;
}
