/**
 * What every plot of the site shares: the two themes (VitePress's light and dark palettes),
 * the two drawing widths (desktop text column, 390 px phone), the file names the page's
 * <Plot> component picks from (docs/.vitepress/theme/Plot.vue), and the writer that renders
 * one plot in all four. A plot drawn once on white would be a white box in dark mode and
 * shrunk to unreadable text on a phone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** The colours of a plot, for the site's light or dark theme (VitePress's own palette). */
interface Theme {
  background: string;
  text: string;
  grid: string;
  admitted: string;
  denied: string;
  rule: string;
  /** Line colours for series, in order: greens for served, blue, red for denied, grey. */
  green: string;
  paleGreen: string;
  blue: string;
  red: string;
  grey: string;
}

export const THEMES = {
  light: {
    background: '#ffffff',
    text: '#3c3c43',
    grid: '#e2e2e3',
    admitted: '#1f8a3f',
    denied: '#c8374b',
    rule: '#767680',
    green: '#1f8a3f',
    paleGreen: '#7cc48f',
    blue: '#1f5fa8',
    red: '#c8374b',
    grey: '#767680',
  },
  dark: {
    background: '#1b1b1f',
    text: '#dfdfd6',
    grid: '#3c3f44',
    admitted: '#4cc26e',
    denied: '#f27a89',
    rule: '#a0a0a8',
    green: '#4cc26e',
    paleGreen: '#a8e6b5',
    blue: '#6fa8ff',
    red: '#f27a89',
    grey: '#a0a0a8',
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

/** The file of a plot: `login.svg`, `login-dark.svg`, `login-narrow.svg`… */
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

/**
 * Renders `spec(size, theme)` for each size and theme into `outDir` as {@link plotFile}
 * names it; returns the files written.
 */
export async function writeThemed(
  outDir: string,
  id: string,
  spec: (size: PlotSize, theme: PlotTheme) => TopLevelSpec,
): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  const files: string[] = [];
  for (const size of Object.keys(SIZES) as PlotSize[]) {
    for (const theme of Object.keys(THEMES) as PlotTheme[]) {
      const view = new vega.View(vega.parse(compile(spec(size, theme)).spec), {
        renderer: 'none',
      });
      const file = path.join(outDir, plotFile(id, size, theme));
      writeFileSync(file, cropWidth(await view.toSVG(), SIZES[size].width));
      view.finalize();
      files.push(file);
    }
  }
  return files;
}

/** The x axis of every line plot: seconds since the run started. */
export const TIME_AXIS = { field: 's', type: 'quantitative', title: 'time (s)' } as const;

/**
 * A line plot of `rows` (step lines) by `encoding` (x: {@link TIME_AXIS}), for the theme and size:
 * background, padding, title (lines of `title` and `subtitle`: several on a phone), axes and
 * a legend below in one column, each text in the theme's colour at the size's type size.
 * The plot area is the drawing's width less the y axis and padding.
 */
export function linePlot(
  size: PlotSize,
  theme: PlotTheme,
  title: { text: string[]; subtitle: string[] },
  rows: object[],
  encoding: Record<string, unknown>,
): TopLevelSpec {
  const c = THEMES[theme];
  const { width, font } = SIZES[size];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values: rows },
    mark: { type: 'line', interpolate: 'step-after', strokeWidth: 2 },
    encoding: { x: TIME_AXIS, ...encoding },
    background: c.background,
    padding: 8,
    width: width - 100,
    height: size === 'narrow' ? 220 : 280,
    title: {
      text: title.text,
      subtitle: title.subtitle,
      anchor: 'start',
      color: c.text,
      subtitleColor: c.text,
      fontSize: font + 1,
      subtitleFontSize: font - 1,
      fontWeight: 'normal',
    },
    config: {
      font: 'Inter, system-ui, sans-serif',
      view: { stroke: c.grid },
      axis: {
        labelColor: c.text,
        titleColor: c.text,
        labelFontSize: font,
        titleFontSize: font,
        titleFontWeight: 'normal',
        domainColor: c.grid,
        tickColor: c.grid,
        gridColor: c.grid,
      },
      legend: {
        orient: 'bottom',
        direction: 'vertical',
        columns: 1,
        labelColor: c.text,
        labelFontSize: font,
        // vega measures text at 0.8 em a character in Node: no limit, the real labels fit
        labelLimit: 2000,
      },
    },
  } as TopLevelSpec;
}
