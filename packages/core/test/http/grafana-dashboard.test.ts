// The Grafana dashboard of docs/public/grafana/sluice-dashboard.json, checked against what
// sluice emits: traffic through an HttpLimiter with `metrics: { meterProvider }` on a
// provider read by the OpenTelemetry Prometheus exporter, scraped as Prometheus would. Every
// series a panel's query names must be in the scrape, with every label the query selects or
// groups by; and every instrument sluice emits has a panel.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter } from '../../src/http/index.js';
import { Limit, LimitOperations, MemoryStore, type RequestView } from '../../src/index.js';

const DASHBOARD = path.join(__dirname, '../../../../docs/public/grafana/sluice-dashboard.json');
/** Labels Prometheus adds at scrape time (target labels), and a histogram bucket's bound. */
const SCRAPE_LABELS = new Set(['job', 'instance']);

interface Query {
  metrics: string[];
  labels: string[];
}

/** The series and label names a PromQL expression uses (the subset the dashboard writes). */
function parseQuery(expr: string): Query {
  // series names: outside `by (...)` and `{...}`, before a selector, a range or an argument's end
  const bare = expr.replace(/\bby\s*\([^)]*\)/g, ' ').replace(/\{[^}]*\}/g, ' ');
  const metrics = [...bare.matchAll(/\b(sluice_[a-z_]+)\s*(?=\[|,|\)|\s|$)/g)].map((m) => m[1]!);
  const labels: string[] = [];
  for (const m of expr.matchAll(/\bby\s*\(([^)]*)\)/g)) {
    labels.push(...m[1]!.split(',').map((s) => s.trim()));
  }
  for (const m of expr.matchAll(/\{([^}]*)\}/g)) {
    for (const matcher of m[1]!.split(',')) {
      const name = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|!~|=)/.exec(matcher)?.[1];
      if (name !== undefined) labels.push(name);
    }
  }
  const labelValues = /label_values\(\s*([a-z_]+)\s*,\s*([a-z_]+)\s*\)/.exec(expr);
  if (labelValues) {
    metrics.push(labelValues[1]!);
    labels.push(labelValues[2]!);
  }
  return { metrics: [...new Set(metrics)], labels: [...new Set(labels.filter(Boolean))] };
}

/** Every `expr` of the dashboard's panels and its variables' queries. */
function dashboardQueries(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: { title: string; targets: { expr: string }[] }[];
    templating: { list: { query?: unknown }[] };
  };
  const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
  for (const v of dashboard.templating.list) {
    const q = v.query as { query?: string } | string | undefined;
    const text = typeof q === 'string' ? q : q?.query;
    if (text?.includes('sluice_')) exprs.push(text);
  }
  return exprs;
}

/** A scrape in Prometheus's text format: series name → its label names. */
function parseScrape(text: string): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s/.exec(line);
    if (!m) continue;
    const labels = series.get(m[1]!) ?? new Set<string>();
    for (const pair of (m[3] ?? '').split(/,(?=[a-zA-Z_]+=)/)) {
      const name = pair.split('=')[0]?.trim();
      if (name) labels.add(name);
    }
    series.set(m[1]!, labels);
  }
  return series;
}

function view(ip: string, route = 'GET /a'): RequestView {
  return { method: 'GET', route, ip, headers: {}, raw: {} };
}

describe('the Grafana dashboard (docs/public/grafana/sluice-dashboard.json)', () => {
  let series: Map<string, Set<string>>;

  beforeAll(async () => {
    const exporter = new PrometheusExporter({ preventServerStart: true });
    const meterProvider = new MeterProvider({ readers: [exporter] });
    const store = new MemoryStore();
    // the operations snapshot of this store counts the most-denied subjects (sluice.denials.top)
    new LimitOperations({ store, clock: () => EPOCH });
    const metrics = { meterProvider };
    const perMinute = new HttpLimiter({
      store,
      clock: () => EPOCH,
      limit: Limit.perMinute(1).named('api'),
      metrics,
    });
    const concurrent = new HttpLimiter({
      store,
      clock: () => EPOCH,
      limit: Limit.concurrent(5).named('uploads'),
      metrics,
    });
    for (const ip of ['203.0.113.7', '203.0.113.7', '198.51.100.9'])
      await perMinute.check(view(ip));
    expect((await concurrent.check(view('192.0.2.1', 'POST /upload')))!.allowed).toBe(true);
    // the lease the pipeline counts while the response is in flight (held.ts)
    concurrent.metrics!.lease('uploads', +1);
    const { resourceMetrics, errors } = await exporter.collect();
    expect(errors).toEqual([]);
    series = parseScrape(new PrometheusSerializer().serialize(resourceMetrics));
    await meterProvider.shutdown();
  });

  it('every series a panel queries is one sluice emits, with the labels the query uses', () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThanOrEqual(7);
    for (const expr of queries) {
      const { metrics, labels } = parseQuery(expr);
      expect(metrics.length).toBeGreaterThan(0);
      for (const metric of metrics) {
        const emitted = series.get(metric);
        if (emitted === undefined) {
          throw new Error(`${metric} (in "${expr}") is not in the scrape: ${[...series.keys()]}`);
        }
        for (const label of labels) {
          if (SCRAPE_LABELS.has(label) || (label === 'le' && metric.endsWith('_bucket'))) continue;
          expect(`${metric}{${label}}: ${emitted.has(label)}`).toBe(`${metric}{${label}}: true`);
        }
      }
    }
  });

  it('every instrument sluice emits has a panel', () => {
    const queried = new Set(dashboardQueries().flatMap((e) => parseQuery(e).metrics));
    const instruments = [...series.keys()].filter((name) => name.startsWith('sluice_'));
    // the four instruments of @sluice/core's metrics (a histogram is three series)
    expect(instruments.map((n) => n.replace(/_(bucket|sum|count)$/, ''))).toEqual(
      expect.arrayContaining([
        'sluice_requests_total',
        'sluice_store_duration',
        'sluice_leases',
        'sluice_denials_top',
      ]),
    );
    for (const name of instruments) {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      const covered = [...queried].some(
        (q) => q === name || q.startsWith(`${base}_`) || q === base,
      );
      expect(`${name}: ${covered}`).toBe(`${name}: true`);
    }
  });
});
