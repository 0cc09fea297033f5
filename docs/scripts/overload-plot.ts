/**
 * The plots of docs/guide/features/adaptive.md: p99 latency and goodput per second, and the
 * adaptive limit, of the overload simulation (data/overload-simulation.json, written by
 * `pnpm bench:overload-simulation`): 8 workers × 20 ms, Poisson 800 rps, workers halved at
 * 60 s, behind `Limit.adaptive()` and with no limiter. Rendered as plots.ts does, in both
 * widths and themes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { linePlot, THEMES, writeThemed } from './plot-theme.js';

/** What `pnpm bench:overload-simulation` writes. */
interface Simulation {
  date: string;
  config: { seconds: number; ratePerSecond: number; serviceMs: number; workers: string };
  adaptive: { s: number; p99: number | null; goodput: number }[];
  none: { s: number; p99: number | null; goodput: number }[];
  limit: { s: number; limit: number }[];
}

/** Writes `overload-latency` and `overload-limit` (all variants) into `outDir`; returns the files. */
export async function writeOverloadPlots(outDir: string, dataFile: string): Promise<string[]> {
  const data = JSON.parse(readFileSync(dataFile, 'utf8')) as Simulation;
  const { config } = data;
  const setup = `${config.workers} workers × ${config.serviceMs} ms, Poisson ${config.ratePerSecond} rps; simulated, fake clock`;
  const latency: object[] = [];
  for (const [series, rows] of [
    ['Limit.adaptive()', data.adaptive],
    ['no limiter', data.none],
  ] as const) {
    for (const r of rows) if (r.p99 !== null) latency.push({ s: r.s, p99: r.p99, series });
  }
  const files = await writeThemed(outDir, 'overload-latency', (size, theme) => {
    const c = THEMES[theme];
    const title =
      size === 'narrow'
        ? {
            text: ['p99 latency per second'],
            subtitle: [
              `${config.workers} workers × ${config.serviceMs} ms,`,
              `Poisson ${config.ratePerSecond} rps (simulated)`,
            ],
          }
        : { text: ['p99 latency per second, 2× overload'], subtitle: [setup] };
    return linePlot(size, theme, title, latency, {
      y: { field: 'p99', type: 'quantitative', title: 'p99 (ms, log)', scale: { type: 'log' } },
      color: { field: 'series', type: 'nominal', title: null, scale: { range: [c.green, c.blue] } },
    });
  });
  const limits = data.limit.map((r) => ({ ...r, series: 'the adaptive limit' }));
  files.push(
    ...(await writeThemed(outDir, 'overload-limit', (size, theme) => {
      const c = THEMES[theme];
      const title =
        size === 'narrow'
          ? { text: ['The adaptive limit'], subtitle: ['workers halved at 60 s'] }
          : {
              text: ['The adaptive limit (requests in flight)'],
              subtitle: [`${setup}; workers halved at 60 s`],
            };
      return linePlot(size, theme, title, limits, {
        y: { field: 'limit', type: 'quantitative', title: 'limit' },
        color: { field: 'series', type: 'nominal', title: null, scale: { range: [c.green] } },
      });
    })),
  );
  return files;
}

/** What `pnpm bench:overload --write` writes (the parts plotted). */
interface OverloadRun {
  date: string;
  loadAverage: number;
  config: { cpuMsPerRequest: number; offeredPerSecond: number; load?: string };
  unloaded: { p99Ms: number };
  overloaded: Record<'none' | 'adaptive', { perSecond: { s: number; p99: number | null }[] }>;
}

/**
 * Writes `overload-run` (all variants): p99 latency per second of the real overload run
 * (data/overload-run.json, `pnpm bench:overload --write`), with `Limit.adaptive()` and with
 * no limiter. No file yet: no plot.
 */
export async function writeOverloadRunPlot(outDir: string, dataFile: string): Promise<string[]> {
  if (!existsSync(dataFile)) return [];
  const data = JSON.parse(readFileSync(dataFile, 'utf8')) as OverloadRun;
  const rows: object[] = [];
  for (const [series, run] of [
    ['Limit.adaptive()', data.overloaded.adaptive],
    ['no limiter', data.overloaded.none],
  ] as const) {
    for (const r of run.perSecond) if (r.p99 !== null) rows.push({ s: r.s, p99: r.p99, series });
  }
  const setup = `Fastify on one core, ${data.config.cpuMsPerRequest} ms CPU per request, ${data.config.offeredPerSecond} rps offered (2×, ${data.config.load === 'autocannon' ? 'autocannon' : 'open-loop'}); load average ${data.loadAverage.toFixed(1)}, ${data.date.slice(0, 10)}`;
  return writeThemed(outDir, 'overload-run', (size, theme) => {
    const c = THEMES[theme];
    const title =
      size === 'narrow'
        ? { text: ['p99 per second, real server'], subtitle: ['Fastify, one core, 2× capacity'] }
        : { text: ['p99 latency per second, a real server at 2× capacity'], subtitle: [setup] };
    return linePlot(size, theme, title, rows, {
      y: { field: 'p99', type: 'quantitative', title: 'p99 (ms, log)', scale: { type: 'log' } },
      color: { field: 'series', type: 'nominal', title: null, scale: { range: [c.green, c.blue] } },
    });
  });
}
