/**
 * The algorithm plots of docs/guide/algorithms.md: for each scenario of traffic.ts, every
 * request as a tick, admitted above and denied below, one row per algorithm, decided by the
 * real core. Rendered to SVG by vega-lite + vega in Node (no browser), as the bench's chart,
 * in two widths (desktop, phone) and two themes (light, dark): the page shows the one that
 * fits (docs/.vitepress/theme/Plot.vue).
 */
import type { TopLevelSpec } from 'vega-lite';
import { type PlotSize, type PlotTheme, SIZES, THEMES, writeThemed } from './plot-theme.js';
import {
  ALGORITHMS,
  admittedBefore,
  LIMIT,
  SCENARIOS,
  type Scenario,
  simulate,
} from './traffic.js';

/** Every algorithm as a row with its name and figures above it, each request a tick. */
function spec(scenario: Scenario, rows: object[], size: PlotSize, theme: PlotTheme): TopLevelSpec {
  const c = THEMES[theme];
  const { width, font } = SIZES[size];
  const axis = {
    labelColor: c.text,
    titleColor: c.text,
    labelFontSize: font,
    titleFontSize: font,
    titleFontWeight: 'normal' as const,
    domainColor: c.grid,
    tickColor: c.grid,
    gridColor: c.grid,
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `limit '${LIMIT}': one tick per request`,
      anchor: 'start',
      color: c.text,
      fontSize: font,
      fontWeight: 'normal',
    },
    background: c.background,
    padding: 8,
    config: {
      font: 'Inter, system-ui, sans-serif',
      view: { stroke: c.grid },
      axis,
      header: { labelColor: c.text, labelFontSize: font },
      legend: { labelColor: c.text, labelFontSize: font, symbolSize: font * 8 },
    },
    data: { values: rows },
    facet: {
      row: {
        field: 'row',
        type: 'nominal',
        sort: { field: 'order', op: 'min' },
        title: null,
        header: { labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelPadding: 4 },
      },
    },
    spacing: Math.round(font * 0.8),
    spec: {
      // The plot area: the drawing's width less the padding and the last x label's overhang.
      width: width - 28,
      height: Math.round(font * 2.6),
      layer: [
        {
          mark: { type: 'tick', thickness: 1.5, size: Math.round(font * 1.1) },
          encoding: {
            x: {
              field: 's',
              type: 'quantitative',
              title: 'time (s)',
              scale: { domain: [0, scenario.seconds] },
              axis: {
                tickCount: size === 'narrow' ? scenario.seconds / 30 : scenario.seconds / 10,
              },
            },
            y: {
              field: 'result',
              type: 'nominal',
              title: null,
              sort: ['admitted', 'denied'],
              axis: null,
            },
            color: {
              field: 'result',
              type: 'nominal',
              title: null,
              scale: { domain: ['admitted', 'denied'], range: [c.admitted, c.denied] },
              legend: { orient: 'top', direction: 'horizontal' },
            },
            tooltip: [
              { field: 's', title: 'time (s)' },
              { field: 'result' },
              { field: 'retryAfter', title: 'Retry-After (s)' },
            ],
          },
        },
        {
          // The end of the first minute: one rule per row.
          transform: [{ aggregate: [{ op: 'count', as: 'n' }] }],
          mark: { type: 'rule', strokeDash: [4, 4], color: c.rule },
          encoding: { x: { datum: 60 } },
        },
      ],
    },
  };
}

/**
 * Writes every scenario's plot into `outDir` in each size and theme (`plotFile`);
 * returns the files written.
 */
export async function writePlots(outDir: string): Promise<string[]> {
  const results = simulate();
  const files: string[] = [];
  for (const scenario of SCENARIOS) {
    const byAlgorithm = results.get(scenario.id)!;
    const rows = ALGORITHMS.flatMap((a, order) => {
      const outcomes = byAlgorithm.get(a)!;
      const label = `${a}: ${admittedBefore(outcomes, 60_000)} in the 1st minute, ${admittedBefore(outcomes, Infinity)} in all`;
      return outcomes.map((o) => ({
        row: label,
        order,
        s: o.t / 1000,
        result: o.allowed ? 'admitted' : 'denied',
        retryAfter: o.retryAfter,
      }));
    });
    files.push(
      ...(await writeThemed(outDir, scenario.id, (size, theme) =>
        spec(scenario, rows, size, theme),
      )),
    );
  }
  return files;
}
