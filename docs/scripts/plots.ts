/**
 * The algorithm plots of docs/guide/algorithms.md: for each scenario of traffic.ts, every
 * request as a tick, admitted above and denied below, one row per algorithm, decided by the
 * real core. Rendered to SVG by vega-lite + vega in Node (no browser), as the bench's chart,
 * in two widths (desktop, phone) and two themes (light, dark): the page shows the one that
 * fits (docs/.vitepress/theme/Plot.vue).
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

/** The colours of a plot, for the site's light or dark theme (VitePress's own palette). */
interface Theme {
  background: string;
  text: string;
  grid: string;
  admitted: string;
  denied: string;
  rule: string;
}

export const THEMES = {
  light: {
    background: '#ffffff',
    text: '#3c3c43',
    grid: '#e2e2e3',
    admitted: '#1f8a3f',
    denied: '#c8374b',
    rule: '#767680',
  },
  dark: {
    background: '#1b1b1f',
    text: '#dfdfd6',
    grid: '#3c3f44',
    admitted: '#4cc26e',
    denied: '#f27a89',
    rule: '#a0a0a8',
  },
} as const satisfies Record<string, Theme>;

/**
 * A plot's drawing size and type size. Drawn at the width the page shows it (the text
 * column: 624 px on a desktop, 342 px on a 390 px phone), so 1 px of the drawing is 1 px on
 * screen and a 12 px label stays 12 px; a wide drawing shrunk onto a phone would not.
 */
export const SIZES = {
  wide: { width: 624, font: 13 },
  narrow: { width: 340, font: 12 },
} as const;

export type PlotTheme = keyof typeof THEMES;
export type PlotSize = keyof typeof SIZES;

/** The file of a scenario's plot: `login.svg`, `login-dark.svg`, `login-narrow.svg`… */
export function plotFile(id: string, size: PlotSize, theme: PlotTheme): string {
  return `${id}${size === 'narrow' ? '-narrow' : ''}${theme === 'dark' ? '-dark' : ''}.svg`;
}

/**
 * The SVG `svg`, `width` px wide. In Node, without a canvas, vega estimates a text's width
 * (0.8 em a character, about 1.5 times the real one) and widens the drawing to fit the row
 * labels' estimates; the real labels fit the plot area, so the drawing is cut to its width.
 */
function cropWidth(svg: string, width: number): string {
  const root =
    /^<svg [^>]*width="(\d+(?:\.\d+)?)" height="(\d+(?:\.\d+)?)" viewBox="0 0 \d+(?:\.\d+)? \d+(?:\.\d+)?"/.exec(
      svg,
    );
  if (root === null) throw new Error('plots: vega wrote an SVG without width, height and viewBox');
  if (Number(root[1]) <= width) return svg;
  const height = root[2];
  return svg
    .replace(
      root[0],
      root[0].replace(
        /width="[^"]+" height="[^"]+" viewBox="[^"]+"/,
        `width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"`,
      ),
    )
    .replace(/<rect width="[^"]+" height="([^"]+)"/, `<rect width="${width}" height="$1"`);
}

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
 * Writes every scenario's plot into `outDir` in each size and theme ({@link plotFile});
 * returns the files written.
 */
export async function writePlots(outDir: string): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
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
    for (const size of Object.keys(SIZES) as PlotSize[]) {
      for (const theme of Object.keys(THEMES) as PlotTheme[]) {
        const view = new vega.View(vega.parse(compile(spec(scenario, rows, size, theme)).spec), {
          renderer: 'none',
        });
        const file = path.join(outDir, plotFile(scenario.id, size, theme));
        writeFileSync(file, cropWidth(await view.toSVG(), SIZES[size].width));
        view.finalize();
        files.push(file);
      }
    }
  }
  return files;
}
