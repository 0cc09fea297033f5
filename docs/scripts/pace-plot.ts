/**
 * The plot of docs/guide/client.md: requests over time from one real run of `pnpm bench:pace`
 * (docs/scripts/pace-run.ts, data in docs/data/pace-run.json): 1,000 requests sent at once to a
 * sluice server at 10/s, through `pacedFetch` and through plain `fetch` with ky-style
 * retries. Cumulative answers by status; vega-lite rendered in Node, in both widths and
 * themes, as the other plots.
 */
import { existsSync, readFileSync } from 'node:fs';
import { linePlot, THEMES, writeThemed } from './plot-theme.js';

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

/**
 * Writes `client-pacing.svg` and its phone and dark variants (plot-theme.ts) into `outDir`
 * from `dataFile`; returns the files, or none without data.
 */
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
  const wide = {
    text: ['1,000 requests at once to a sluice server at 10/s'],
    subtitle: [`answers over time, cumulative (${data.headers} headers, 127.0.0.1, one real run)`],
  };
  const narrow = {
    text: ['1,000 requests at once', 'to a sluice server at 10/s'],
    subtitle: ['answers over time, cumulative', `(${data.headers} headers, one real run)`],
  };
  return writeThemed(outDir, 'client-pacing', (size, theme) => {
    const c = THEMES[theme];
    return linePlot(size, theme, size === 'narrow' ? narrow : wide, rows, {
      y: { field: 'n', type: 'quantitative', title: 'answers' },
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        sort: null,
        scale: { range: [c.green, c.paleGreen, c.blue, c.red] },
      },
    });
  });
}
