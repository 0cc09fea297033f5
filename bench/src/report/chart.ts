// The chart docs/benchmarks.svg (and -dark.svg): a bar per limiter and case, a panel per figure,
// drawn by vega-lite in Node in the algorithm plots' colours (docs/scripts/plots.ts).
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { type PlotTheme, THEMES } from '../../../docs/scripts/plot-theme.js';
import { count } from './format.js';
import type { ReportInput } from './types.js';
import { redisClient } from './verdicts.js';

/** One bar of the chart: a limiter's figure in one case of one panel. */
export interface Bar {
  panel: string;
  case: string;
  limiter: string;
  value: number;
}

const HTTP_PANEL = 'HTTP: requests/s';

/**
 * Every subject the chart can show, in stacking order, each its own colour and legend entry (sluice's
 * variants in blues); a bar of an unlisted subject is an error, so none takes another's colour.
 */
const LIMITERS: [string, string, string?][] = [
  ['unlimited', '#7f7f7f'],
  ['sluice', '#1f77b4'],
  ['sluice (prefetch)', '#08306b', '#c6dbef'],
  ['sluice on iovalkey', '#6baed6'],
  ['sluice on node-redis 6', '#17becf'],
  ['rate-limiter-flexible', '#ff7f0e'],
  ['@fastify/rate-limit', '#2ca02c'],
  ['express-rate-limit', '#d62728'],
  ['koa-ratelimit', '#9467bd'],
  ['hono-rate-limiter', '#ff9896'],
  ['baseline: the 3 headers only', '#c7c7c7', '#525252'],
  ['@nestjs/throttler', '#8c564b'],
  ['@nestjs/throttler + Redis storage', '#e377c2'],
  ['redis-benchmark', '#bcbd22'],
];

/** Names too long for a legend column, as the chart shows them. */
const SHORT: Record<string, string> = {
  '@nestjs/throttler + @nest-lab/throttler-storage-redis': '@nestjs/throttler + Redis storage',
};

/** The chart's name of a Redis throughput row's subject (its label names the client). */
function redisSubject(label: string): string {
  const client = redisClient(label);
  if (!label.startsWith('sluice')) return 'rate-limiter-flexible';
  return client === 'ioredis' ? 'sluice' : `sluice on ${client}`;
}

function chartBars(input: ReportInput): Bar[] {
  const bars: Bar[] = [];
  const bar = (panel: string, label: string, limiter: string, value: number) =>
    bars.push({ panel, case: label, limiter, value });
  /** sluice's bar and RLF's in one case. */
  const pair = (panel: string, label: string, r: { sluice: number; rlf: number }) => {
    bar(panel, label, 'sluice', r.sluice);
    bar(panel, label, 'rate-limiter-flexible', r.rlf);
  };
  const { core, redis, http } = input;
  if (http !== undefined) {
    const panel = `${HTTP_PANEL}, ${http.config.connections} connections (medians)`;
    for (const c of http.cases)
      for (const r of c.rows) bar(panel, c.title, SHORT[r.limiter] ?? r.limiter, r.rps);
  }
  if (core !== undefined) {
    const panel = 'memory store: decisions/s, one at a time (medians)';
    for (const r of core.throughput)
      if (!/^(extra|RateLimiter)|in flight/.test(r.label)) pair(panel, r.label, r);
    for (const r of core.scale?.rows ?? []) pair(panel, `GCRA, ${count(r.keys)} resident keys`, r);
    for (const r of core.peers?.rows ?? [])
      if (r.kind === 'rate')
        for (const f of r.figures) bar(panel, `every peer: ${r.label}`, f.name, f.median);
  }
  if (redis !== undefined) {
    const panel = `Redis: decisions/s, one client, ${redis.config.inFlight} in flight (medians)`;
    for (const r of redis.throughput) {
      const label = `GCRA, ${count(redis.config.keys)} keys${r.autoPipelining ? ', auto-pipelining' : ''}`;
      bar(panel, label, redisSubject(r.label), r.rate);
    }
    const benchmark = 'redis-benchmark';
    bar(panel, `${benchmark} EVALSHA -P 16 (ceiling)`, benchmark, redis.ceiling.rate);
    bar(panel, `${benchmark} EVALSHA 'return 1' -P 16`, benchmark, redis.noopCeiling.rate);
    for (const r of redis.scale?.rows ?? [])
      pair(panel, `GCRA, ${count(r.keys)} resident keys, auto-pipelining`, r);
  }
  return bars;
}

/** The site's text column width: 12 px labels stay 12 px; case labels wrap at LINE_CHARS. */
const CHART_PX = 624;
const FONT_PX = 12;
const LINE_CHARS = 30;
/** Where a case label breaks (`|`: an axis label can have several lines). */
const BREAK = '|';

/** `label` in lines of at most LINE_CHARS, broken after `, ` or `: ` where it can, joined by BREAK. */
function wrapLabel(label: string): string {
  // A part still too long (no comma in it) breaks between words.
  const parts = label
    .split(/(?<=, |: )/)
    .flatMap((p) => (p.length > LINE_CHARS ? p.split(/(?<= )/) : [p]));
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines.at(-1);
    if (last !== undefined && (last + part).trimEnd().length <= LINE_CHARS)
      lines[lines.length - 1] = last + part;
    else lines.push(part);
  }
  return lines.map((l) => l.trimEnd()).join(BREAK);
}

/** The chart of `input`: one panel per figure, in the order its bars come. */
export function chartSpec(input: ReportInput, theme: PlotTheme = 'light'): TopLevelSpec {
  const m = input.run.machine;
  const title = `sluice vs peers, ${input.run.date.slice(0, 10)}, ${m.cores} cores (${m.cpu})`;
  const bars = chartBars(input);
  // Each bar's place within its case, so a case shows only its own limiters, without gaps.
  const slotted = bars.map((b, i, all) => ({
    ...b,
    case: wrapLabel(b.case),
    slot: all.slice(0, i).filter((x) => x.panel === b.panel && x.case === b.case).length,
  }));
  const panels = [...new Set(slotted.map((b) => b.panel))];
  const unknown = slotted.find((b) => !LIMITERS.some(([name]) => name === b.limiter));
  if (unknown !== undefined)
    throw new Error(`chart: no colour for ${unknown.limiter} (add it to LIMITERS in chart.ts)`);
  const shown = LIMITERS.filter(([name]) => slotted.some((b) => b.limiter === name));
  const labelPx = Math.ceil(0.56 * FONT_PX * LINE_CHARS);
  const color = {
    field: 'limiter',
    type: 'nominal' as const,
    title: null,
    scale: {
      domain: shown.map(([name]) => name),
      range: shown.map(([, light, dark]) => (theme === 'dark' ? (dark ?? light) : light)),
    },
    legend: { orient: 'top' as const, columns: 2, symbolType: 'square', labelLimit: 260 },
  };
  // The light chart stays as it was drawn before the themes (vega's own greys on white).
  const c = theme === 'dark' ? THEMES.dark : undefined;
  const ink = c && { labelColor: c.text, titleColor: c.text };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    background: c?.background ?? 'white',
    padding: 8,
    config: {
      font: 'Helvetica, Arial, sans-serif',
      axis: {
        labelFontSize: FONT_PX,
        titleFontSize: FONT_PX,
        labelLimit: labelPx + 20,
        ...(c && { ...ink, domainColor: c.grid, tickColor: c.grid, gridColor: c.grid }),
      },
      legend: { labelFontSize: FONT_PX, labelLimit: 200, ...ink },
      title: {
        fontSize: FONT_PX + 1,
        anchor: 'start',
        frame: 'group',
        ...(c && { color: c.text }),
      },
      ...(c && { view: { stroke: c.grid } }),
    },
    vconcat: panels.map((panel) => ({
      title: panel,
      data: { values: slotted.filter((b) => b.panel === panel) },
      // The bars: the drawing's width less the labels and the padding.
      width: CHART_PX - labelPx - 50,
      height: { step: 14 },
      mark: { type: 'bar' as const, tooltip: true },
      encoding: {
        y: {
          field: 'case',
          type: 'nominal' as const,
          title: null,
          sort: null,
          axis: { labelExpr: `split(datum.label, '${BREAK}')` },
        },
        yOffset: { field: 'slot', type: 'ordinal' as const },
        x: {
          field: 'value',
          type: 'quantitative' as const,
          title: panel.startsWith(HTTP_PANEL) ? 'requests/s' : 'decisions/s',
          axis: { format: '~s' },
        },
        color,
      },
    })),
    resolve: { scale: { x: 'independent' } },
  };
}

/**
 * The width of `text` in Helvetica/Arial, about 0.56 em a character: vega in Node has no canvas and
 * guesses 0.8 em, which drew the chart half as wide again.
 */
function textWidth(item: { fontSize?: number }, text: unknown): number {
  return 0.56 * (item.fontSize ?? 11) * String(text ?? '').length;
}

/** The chart as SVG in the site's light or dark theme, rendered by vega (no browser, no canvas). */
export async function renderChart(input: ReportInput, theme: PlotTheme = 'light'): Promise<string> {
  // vega exports textMetrics (vega-scenegraph's) without a type for it.
  (vega as unknown as { textMetrics: { width: typeof textWidth } }).textMetrics.width = textWidth;
  const spec = compile(chartSpec(input, theme)).spec;
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return `${svg}\n`;
}
