import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  AggregationTemporality,
  type DataPoint,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { MemoryStore } from '@sluice/core';
import { type RunningDemo, startDemo } from '../src/demo.js';
import { drive, formatReport, type Tally } from '../src/drive.js';
import { API_PER_MINUTE, LOGIN_PER_MINUTE, REPORT_COST } from '../src/limits.js';
import type { DemoStores } from '../src/store.js';
import { startTelemetry } from '../src/telemetry.js';

// The three apps in this process, on free ports, each with fresh in-memory counters; the
// driver's default traffic (its real HTTP requests) against them.
const memoryStores: DemoStores = {
  description: 'memory (test)',
  storeFor: () => new MemoryStore(),
  close: async () => {},
};

let demo: RunningDemo;
let tallies: Tally[];
// The three apps record their metrics here (the SDK's in-memory exporter).
const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });

beforeAll(async () => {
  demo = await startDemo({ port: 0, stores: memoryStores, metrics: { meterProvider } });
  tallies = await drive(demo.urls);
}, 30_000);

afterAll(async () => {
  await demo?.close();
  await meterProvider.shutdown();
});

function tally(framework: string, route: string, user: string): Tally {
  const t = tallies.find((x) => x.framework === framework && x.route === route && x.user === user);
  if (t === undefined) throw new Error(`no tally for ${framework} ${route} ${user}`);
  return t;
}

describe.each(['express', 'fastify', 'koa'])('%s demo app', (framework) => {
  test('listens on its own port of 127.0.0.1', () => {
    expect(demo.urls[framework as keyof RunningDemo['urls']]).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+$/,
    );
  });

  test('POST /login: 5 per minute per IP, then 429 with Retry-After', () => {
    const t = tally(framework, 'POST /login', '(anonymous)');
    const statuses = t.responses.map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(t.responses.slice(0, 5).map((r) => r.remaining)).toEqual(['4', '3', '2', '1', '0']);
    for (const r of t.responses) expect(r.limit).toBe(String(LOGIN_PER_MINUTE));
    for (const r of t.responses.slice(0, 5)) expect(r.retryAfter).toBeNull();
    for (const r of t.responses.slice(5)) {
      expect(r.remaining).toBe('0');
      // 5 per minute refills one every 12 s: the next login is at most 12 s away.
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(r.retryAfter)).toBeLessThanOrEqual(12);
    }
  });

  test('/api: each user has an independent bucket, shared by the /api routes', () => {
    const alice = tally(framework, 'GET /api/items', 'alice');
    // 65 requests against 60 a minute (1 more may refill while they run).
    expect(alice.ok).toBeGreaterThanOrEqual(API_PER_MINUTE);
    expect(alice.ok).toBeLessThanOrEqual(API_PER_MINUTE + 1);
    expect(alice.limited).toBe(65 - alice.ok);
    expect(alice.responses.at(-1)).toMatchObject({ status: 429, remaining: '0' });
    expect(Number(alice.responses.at(-1)!.retryAfter)).toBeGreaterThanOrEqual(1);

    // bob and carol came after alice was out, and are unaffected.
    const bob = tally(framework, 'GET /api/items', 'bob');
    expect(bob).toMatchObject({ ok: 10, limited: 0 });
    expect(bob.responses[0]!.remaining).toBe(String(API_PER_MINUTE - 1));

    // carol's /api/me and /api/items draw from one bucket: 3 then 5 more.
    const carolMe = tally(framework, 'GET /api/me', 'carol');
    const carolItems = tally(framework, 'GET /api/items', 'carol');
    expect(carolMe).toMatchObject({ ok: 3, limited: 0 });
    expect(carolItems).toMatchObject({ ok: 5, limited: 0 });
    expect(carolMe.responses[0]!.remaining).toBe(String(API_PER_MINUTE - 1));
    expect(Number(carolItems.responses[0]!.remaining)).toBeLessThanOrEqual(API_PER_MINUTE - 4);

    // Anonymous /api requests are counted by IP, not with any user.
    const anonymous = tally(framework, 'GET /api/items', '(anonymous)');
    expect(anonymous).toMatchObject({ ok: 5, limited: 0 });
    expect(anonymous.responses[0]!.remaining).toBe(String(API_PER_MINUTE - 1));
  });

  test('GET /api/report costs 10 of the same bucket', () => {
    const bob = tally(framework, 'GET /api/items', 'bob');
    const report = tally(framework, 'GET /api/report', 'bob');
    expect(report).toMatchObject({ ok: 2, limited: 0 });
    const before = Number(bob.responses.at(-1)!.remaining);
    const [first, second] = report.responses.map((r) => Number(r.remaining));
    // Exactly REPORT_COST each; a refill (1 per second) may add 1 between two requests.
    expect(before - first!).toBeGreaterThanOrEqual(REPORT_COST - 1);
    expect(before - first!).toBeLessThanOrEqual(REPORT_COST);
    expect(first! - second!).toBeGreaterThanOrEqual(REPORT_COST - 1);
    expect(first! - second!).toBeLessThanOrEqual(REPORT_COST);
  });

  test('POST /session: successful logins never count; 5 failures, then 429 blocked 15 min', () => {
    const good = tally(framework, 'POST /session', 'dave');
    expect(good).toMatchObject({ ok: 3, limited: 0, other: 0 });
    const bad = tally(framework, 'POST /session', '(anonymous)');
    expect(bad.responses.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
    for (const r of bad.responses.slice(5)) {
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(899);
      expect(Number(r.retryAfter)).toBeLessThanOrEqual(900);
    }
  });

  test('GET /api/export: 3 at once with 2 in flight allowed → 2 × 200, 1 × 429', () => {
    const exports = tally(framework, 'GET /api/export', 'erin');
    expect(exports).toMatchObject({ ok: 2, limited: 1 });
    expect(exports.responses.find((r) => r.status === 429)!.retryAfter).toBe('1');
  });

  test('GET / is never limited and has no rate-limit headers', async () => {
    const base = demo.urls[framework as keyof RunningDemo['urls']];
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${base}/`);
      await res.arrayBuffer();
      statuses.push(res.status);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(tally(framework, 'GET /', '(anonymous)')).toMatchObject({ ok: 3, limited: 0 });
  });
});

test('the report lists every framework, route and user', () => {
  const report = formatReport(tallies);
  for (const f of ['express', 'fastify', 'koa']) expect(report).toContain(f);
  expect(report).toContain('POST /login');
  expect(report).toContain('alice');
});

test('metrics: sluice.requests adds up to the driven traffic, by limit and result, with no user or IP in any attribute', async () => {
  await reader.forceFlush();
  const batches = exporter.getMetrics();
  const points = batches
    .at(-1)!
    .scopeMetrics.flatMap((sm) => sm.metrics)
    .filter((m) => m.descriptor.name === 'sluice.requests')
    .flatMap((m) => m.dataPoints as DataPoint<number>[]);
  const byResult: Record<string, number> = {};
  for (const p of points) {
    const result = String(p.attributes['sluice.result']);
    byResult[result] = (byResult[result] ?? 0) + (p.value as number);
    for (const value of Object.values(p.attributes)) {
      for (const text of ['alice', 'bob', 'carol', '127.0.0.1', 'Bearer']) {
        expect(String(value)).not.toContain(text);
      }
    }
  }
  const limited = tallies.filter((t) => t.route !== 'GET /');
  // Admitted by the limiter: every answer but a 429 (a failed login's 401 was admitted too).
  const ok = limited.reduce((n, t) => n + t.ok + t.other, 0);
  const denied = limited.reduce((n, t) => n + t.limited, 0);
  expect(byResult).toEqual({ allowed: ok, limited: denied });
  const names = new Set(points.map((p) => String(p.attributes['sluice.limit'])));
  expect(names.has('api')).toBe(true);
});

test('pnpm demo exports over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set: a collector receives sluice.requests; the console otherwise', async () => {
  const toConsole = startTelemetry({});
  expect(toConsole.description).toMatch(/console/);
  await toConsole.shutdown();
  const bodies: string[] = [];
  const collector = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      bodies.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  try {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', path.join(__dirname, 'otlp-child.ts')],
        {
          cwd: path.join(__dirname, '..'),
          env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
          timeout: 20_000,
        },
        (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      );
    });
    expect(out).toContain(`OTLP/HTTP to ${endpoint}`);
  } finally {
    await new Promise((r) => collector.close(r));
  }
  const exported = bodies.find((b) => b.startsWith('POST /v1/metrics '));
  expect(exported).toBeDefined();
  for (const text of [
    'sluice.requests',
    'sluice.store.duration',
    'sluice-demo',
    '"api"',
    'allowed',
  ])
    expect(exported).toContain(text);
  expect(exported).not.toContain('alice');
}, 30_000);
