/**
 * The algorithm plots of docs/guide/algorithms.md: for each scenario of traffic.ts, every
 * request as a tick, admitted above and denied below, one row per algorithm, decided by the
 * real core. Rendered to SVG by vega-lite + vega in Node (no browser), as the bench's chart.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import {
  ALGORITHMS,
  admittedBefore,
  LIMIT,
  SCENARIOS,
  type Scenario,
  simulate,
} from './traffic.js';

function spec(scenario: Scenario, rows: object[]): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: scenario.title, subtitle: `limit ${LIMIT}; each tick is one request` },
    width: 600,
    height: ALGORITHMS.length * 44,
    background: 'white',
    config: { font: 'Inter, system-ui, sans-serif', view: { stroke: '#ddd' } },
    layer: [
      {
        data: { values: rows },
        mark: { type: 'tick', thickness: 1.5, size: 16 },
        encoding: {
          x: {
            field: 's',
            type: 'quantitative',
            title: 'time (s)',
            scale: { domain: [0, scenario.seconds] },
            axis: { tickCount: scenario.seconds / 10 },
          },
          y: { field: 'row', type: 'nominal', title: null, sort: null, axis: { labelLimit: 300 } },
          yOffset: { field: 'result', type: 'nominal', sort: ['admitted', 'denied'] },
          color: {
            field: 'result',
            type: 'nominal',
            title: null,
            scale: { domain: ['admitted', 'denied'], range: ['#2a9d4b', '#d1495b'] },
            legend: { orient: 'top' },
          },
          tooltip: [
            { field: 's', title: 'time (s)' },
            { field: 'result' },
            { field: 'retryAfter', title: 'Retry-After (s)' },
          ],
        },
      },
      {
        data: { values: [{ s: 60 }] },
        mark: { type: 'rule', strokeDash: [4, 4], color: '#888' },
        encoding: { x: { field: 's', type: 'quantitative' } },
      },
    ],
  };
}

/** Writes `<id>.svg` for every scenario into `outDir`; returns the files written. */
export async function writePlots(outDir: string): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  const results = simulate();
  const files: string[] = [];
  for (const scenario of SCENARIOS) {
    const byAlgorithm = results.get(scenario.id)!;
    const rows = ALGORITHMS.flatMap((a) => {
      const outcomes = byAlgorithm.get(a)!;
      const label = `${a}: ${admittedBefore(outcomes, 60_000)} in 1st min, ${admittedBefore(outcomes, Infinity)} in all`;
      return outcomes.map((o) => ({
        row: label,
        s: o.t / 1000,
        result: o.allowed ? 'admitted' : 'denied',
        retryAfter: o.retryAfter,
      }));
    });
    const view = new vega.View(vega.parse(compile(spec(scenario, rows)).spec), {
      renderer: 'none',
    });
    const file = path.join(outDir, `${scenario.id}.svg`);
    writeFileSync(file, await view.toSVG());
    view.finalize();
    files.push(file);
  }
  return files;
}
