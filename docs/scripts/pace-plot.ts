/**
 * The plot of docs/guide/client.md: requests over time from one real run of `pnpm bench:pace`
 * (docs/scripts/pace-run.ts, data in docs/data/pace-run.json): 1,000 requests sent at once to a
 * sluice server at 10/s, through `pacedFetch` and through plain `fetch` with ky-style
 * retries. Cumulative answers by status; vega-lite rendered in Node, as the other plots.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

interface Run {
  answers: [number, number][];
  served: number;
  denied429: number;
  seconds: number;
}

/** Cumulative counts of `status` answers, one point per 250 ms and at each change. */
function cumulative(run: Run, status: number, series: string): object[] {
  const times = run.answers.filter(([, s]) => s === status).map(([t]) => t);
  times.sort((a, b) => a - b);
  const points: object[] = [{ s: 0, n: 0, series }];
  let last = -1;
  times.forEach((t, i) => {
    const bucket = Math.floor(t / 250);
    if (bucket !== last || i === times.length - 1) points.push({ s: t / 1000, n: i + 1, series });
    last = bucket;
  });
  return points;
}

/** Writes `client-pacing.svg` into `outDir` from `dataFile`; returns the file, or none without data. */
export async function writePacePlot(dataFile: string, outDir: string): Promise<string[]> {
  if (!existsSync(dataFile)) return [];
  const data = JSON.parse(readFileSync(dataFile, 'utf8')) as {
    headers: string;
    paced: Run;
    unpaced: Run;
  };
  const { paced, unpaced } = data;
  const rows = [
    ...cumulative(paced, 200, `pacedFetch: 200 (${paced.served} in ${paced.seconds} s)`),
    ...cumulative(paced, 429, `pacedFetch: 429 (${paced.denied429})`),
    ...cumulative(unpaced, 200, `fetch + retries: 200 (${unpaced.served})`),
    ...cumulative(unpaced, 429, `fetch + retries: 429 (${unpaced.denied429})`),
  ];
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: '1,000 requests at once to a sluice server at 10/s',
      subtitle: `answers over time, cumulative (${data.headers} headers, 127.0.0.1, one real run)`,
    },
    width: 600,
    height: 300,
    background: 'white',
    config: { font: 'Inter, system-ui, sans-serif', view: { stroke: '#ddd' } },
    data: { values: rows },
    mark: { type: 'line', interpolate: 'step-after' },
    encoding: {
      x: { field: 's', type: 'quantitative', title: 'time (s)' },
      y: { field: 'n', type: 'quantitative', title: 'answers' },
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        sort: null,
        scale: { range: ['#2a9d4b', '#8fd19e', '#1f5fa8', '#d1495b'] },
        legend: { orient: 'bottom', columns: 2, labelLimit: 300 },
      },
    },
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const file = path.join(outDir, 'client-pacing.svg');
  writeFileSync(file, await view.toSVG());
  view.finalize();
  return [file];
}
