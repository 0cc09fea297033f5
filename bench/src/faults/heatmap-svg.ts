// docs/reliability.svg and reliability-dark.svg: the fault matrix as a heat map (heatmap.ts's
// squares), drawn by vega-lite in Node as bench/src/report/chart.ts draws docs/benchmarks.svg,
// in the site's light and dark colours (docs/scripts/plot-theme.ts).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { type PlotTheme, THEMES } from '../../../docs/scripts/plot-theme.js';
import { BANDS, heatmapCells } from './heatmap.js';
import type { Matrix } from './render.js';

const FONT_PX = 11;

/** The bands' colours (greens within the bound, amber near it, red past it, greys with no
 * bound), and the text on each, dark or light for contrast. */
const COLOURS: Record<PlotTheme, { fill: string[]; text: string[] }> = {
  light: {
    fill: ['#1f8a3f', '#7cc48f', '#e0b43a', '#c8374b', '#d9d9dc', '#8e8e96'],
    text: ['#ffffff', '#1b1b1f', '#1b1b1f', '#ffffff', '#1b1b1f', '#ffffff'],
  },
  dark: {
    fill: ['#4cc26e', '#2f6b40', '#a8862a', '#f27a89', '#3c3f44', '#76767e'],
    text: ['#1b1b1f', '#dfdfd6', '#1b1b1f', '#1b1b1f', '#dfdfd6', '#ffffff'],
  },
};

export function heatmapSpec(m: Matrix, theme: PlotTheme): TopLevelSpec {
  const c = THEMES[theme];
  const cells = heatmapCells(m);
  const faults = [...new Set(cells.map((x) => x.fault))];
  const subjects = [...new Set(cells.map((x) => x.subject))];
  const x = {
    field: 'fault',
    type: 'nominal',
    sort: faults,
    title: null,
    axis: { orient: 'top', labelAngle: -50 },
  } as const;
  const y = { field: 'subject', type: 'nominal', sort: subjects, title: null } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Over-admission by fault (columns) and subject (rows), against its documented bound',
      subtitle: 'Each square: admitted past the limit (as a share of the bound when there is one).',
      anchor: 'start',
      frame: 'bounds',
      color: c.text,
      subtitleColor: c.text,
      fontSize: FONT_PX + 1,
      subtitleFontSize: FONT_PX,
      fontWeight: 'normal',
    },
    background: c.background,
    padding: 8,
    data: { values: cells },
    width: { step: 20 },
    height: { step: 15 },
    encoding: { x, y },
    layer: [
      {
        mark: { type: 'rect', stroke: c.background, strokeWidth: 1 },
        encoding: {
          color: {
            field: 'band',
            type: 'nominal',
            scale: { domain: [...BANDS], range: COLOURS[theme].fill },
            legend: { title: null, orient: 'bottom', columns: 2 },
          },
        },
      },
      {
        mark: { type: 'text', fontSize: 8 },
        encoding: {
          text: { field: 'text' },
          color: {
            field: 'band',
            type: 'nominal',
            scale: { domain: [...BANDS], range: COLOURS[theme].text },
            legend: null,
          },
        },
      },
    ],
    resolve: { scale: { color: 'independent' } },
    config: {
      font: 'Helvetica, Arial, sans-serif',
      view: { stroke: c.grid },
      axis: {
        labelColor: c.text,
        labelFontSize: FONT_PX,
        labelLimit: 260,
        domainColor: c.grid,
        tickColor: c.grid,
      },
      legend: { labelColor: c.text, labelFontSize: FONT_PX, labelLimit: 300 },
    },
  } as TopLevelSpec;
}

/** The width of `text` in Helvetica/Arial (vega in Node has no canvas: chart.ts's estimate). */
function textWidth(item: { fontSize?: number }, text: unknown): number {
  return 0.56 * (item.fontSize ?? 11) * String(text ?? '').length;
}

/** Writes reliability.svg and reliability-dark.svg of `m` into `dir`. */
export async function writeHeatmap(m: Matrix, dir: string): Promise<void> {
  (vega as unknown as { textMetrics: { width: typeof textWidth } }).textMetrics.width = textWidth;
  for (const theme of ['light', 'dark'] as const) {
    const view = new vega.View(vega.parse(compile(heatmapSpec(m, theme)).spec), {
      renderer: 'none',
    });
    const svg = await view.toSVG();
    view.finalize();
    writeFileSync(
      path.join(dir, theme === 'dark' ? 'reliability-dark.svg' : 'reliability.svg'),
      `${svg}\n`,
    );
  }
}
