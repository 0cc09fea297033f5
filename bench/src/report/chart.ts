// The chart docs/benchmarks.svg (and -dark.svg): a bar per limiter and case, a panel per figure,
// drawn by vega-lite in Node in the algorithm plots' colours (docs/scripts/plots.ts).
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { type PlotTheme, THEMES } from '../../../docs/scripts/plot-theme.js';
import { count } from './format.js';
import { inprocBars } from './inproc.js';
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
const INPROC_PANEL = 'HTTP in-process: CPU ns a limiter adds to a request (mean, over unlimited)';

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
  ['sluice on valkey-glide', '#4292c6'],
  ['rate-limiter-flexible', '#ff7f0e'],
  ['@fastify/rate-limit', '#2ca02c'],
  ['express-rate-limit', '#d62728'],
  ['koa-ratelimit', '#9467bd'],
  ['hono-rate-limiter', '#ff9896'],
  ['baseline: the 3 headers only', '#c7c7c7', '#525252'],
  ['@nestjs/throttler', '#8c564b'],
  ['@nestjs/throttler + Redis storage', '#e377c2'],
  ['redis-benchmark', '#bcbd22'],
  ['sluice on postgres.js', '#9ecae1', '#2171b5'],
  ['sluice SqliteStore, synchronous', '#3182bd'],
  ['express-rate-limit + @acpr/rate-limit-postgresql', '#f7b6d2'],
];

/** Names too long for a legend column, as the chart shows them. */
const SHORT: Record<string, string> = {
  '@nestjs/throttler + @nest-lab/throttler-storage-redis': '@nestjs/throttler + Redis storage',
};

/** The chart's case and legend names of a bench:stores row (cases/stores.ts's labels). */
function storeBar(
  row: { store: string; subject: string },
  keys: number,
): { case: string; limiter: string } {
  const store =
    { postgres: 'PostgreSQL', sqlite: 'SQLite', redis: 'Redis' }[row.store] ?? row.store;
  const s = row.subject;
  const limiter = s.includes('(postgres.js)')
    ? 'sluice on postgres.js'
    : s.includes('store.consume (sync)')
      ? 'sluice SqliteStore, synchronous'
      : s.startsWith('sluice')
        ? 'sluice'
        : s.startsWith('rate-limiter-flexible')
          ? 'rate-limiter-flexible'
          : s;
  return { case: `${store}, ${count(keys)} keys`, limiter };
}

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
  const { core, redis, http, inproc, stores } = input;
  if (http !== undefined) {
    const panel = `${HTTP_PANEL}, ${http.config.connections} connections (medians)`;
    for (const c of http.cases)
      for (const r of c.rows) bar(panel, c.title, SHORT[r.limiter] ?? r.limiter, r.rps);
  }
  if (inproc !== undefined)
    for (const b of inprocBars(inproc)) bar(INPROC_PANEL, b.case, b.limiter, b.value);
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
  if (stores !== undefined) {
    const panel = 'PostgreSQL, SQLite, Redis: decisions/s, one process (medians)';
    for (const r of stores.rows) {
      const { case: label, limiter } = storeBar(r, stores.keys);
      bar(panel, label, limiter, r.decisionsPerSecond);
    }
  }
  return bars;
}

/**
 * A phone's width (390 px): a taller, narrower drawing whose 13 px text stays >= 11 px on a
 * 390 px screen's ~340 px text column, and is shown at its own size on the desktop. Case
 * labels wrap at LINE_CHARS, titles at TITLE_CHARS.
 */
const CHART_PX = 390;
const FONT_PX = 13;
const LINE_CHARS = 19;
const TITLE_CHARS = 44;
/** A legend row's height at FONT_PX (vega's default row padding). */
const LEGEND_ROW_PX = 18;
/** Where a case label breaks (`|`: an axis label can have several lines). */
const BREAK = '|';

/** `label` in lines of at most `chars`, broken after `, ` or `: ` where it can. */
function wrapLines(label: string, chars: number): string[] {
  // A part still too long (no comma in it) breaks between words.
  const parts = label
    .split(/(?<=, |: )/)
    .flatMap((p) => (p.length > chars ? p.split(/(?<= )/) : [p]));
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines.at(-1);
    if (last !== undefined && (last + part).trimEnd().length <= chars)
      lines[lines.length - 1] = last + part;
    else lines.push(part);
  }
  return lines.map((l) => l.trimEnd());
}

/** A case label in lines of at most LINE_CHARS, joined by BREAK. */
const wrapLabel = (label: string): string => wrapLines(label, LINE_CHARS).join(BREAK);

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
    // One column above the first panel, from the drawing's left edge (a legend that starts
    // where the bars do would make the drawing wider than a phone).
    legend: {
      orient: 'none' as const,
      legendX: -labelPx - 12,
      legendY: -LEGEND_ROW_PX * shown.length - 30,
      columns: 1,
      symbolType: 'square',
      labelLimit: 340,
    },
  };
  // The light chart stays as it was drawn before the themes (vega's own greys on white).
  const c = theme === 'dark' ? THEMES.dark : undefined;
  const ink = c && { labelColor: c.text, titleColor: c.text };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: wrapLines(title, TITLE_CHARS) },
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
      legend: { labelFontSize: FONT_PX, labelLimit: 340, ...ink },
      title: {
        fontSize: FONT_PX + 1,
        anchor: 'start',
        // From the left edge of the panel's labels, not of its bars: the titles fit the width.
        frame: 'bounds',
        ...(c && { color: c.text }),
      },
      ...(c && { view: { stroke: c.grid } }),
    },
    vconcat: panels.map((panel) => ({
      title: { text: wrapLines(panel, TITLE_CHARS) },
      data: { values: slotted.filter((b) => b.panel === panel) },
      // The bars: the drawing's width less the labels and the padding.
      width: CHART_PX - labelPx - 32,
      height: { step: 17 },
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
          title:
            panel === INPROC_PANEL
              ? 'CPU ns per request'
              : panel.startsWith(HTTP_PANEL)
                ? 'requests/s'
                : 'decisions/s',
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
