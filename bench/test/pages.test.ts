// The committed pages must be what `pnpm bench -- --report-only` renders from bench/results/*.json,
// byte for byte: re-render and commit pages with any change to the writers, templates or verdicts.
// The writers are ESM that import vega, so they run in a child process.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

jest.setTimeout(120_000);

const BENCH = path.resolve(__dirname, '..');
const ROOT = path.resolve(BENCH, '..');
/** Each page: where it is committed, and its name in the `--out` folder. */
const PAGES: [string, string][] = [
  ['docs/benchmarks.md', 'benchmarks.md'],
  ['docs/benchmarks.svg', 'benchmarks.svg'],
  ['docs/benchmarks-dark.svg', 'benchmarks-dark.svg'],
  ['bench/results.md', 'results.md'],
];

/** Renders the results in `results` (default: the committed ones) into a new folder. */
function render(results?: string): Promise<string> {
  const out = mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-pages-'));
  const args = ['--import', 'tsx', 'src/all.ts', '--report-only', '--out', out];
  if (results !== undefined) args.push('--results', results);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: BENCH }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stdout}${stderr}`)) : resolve(out),
    );
  });
}

/** Where `actual` first differs from `expected` (line, and the text around it), to say what went stale. */
function firstDifference(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  let line = a.findIndex((x, n) => x !== b[n]);
  if (line < 0) line = a.length;
  const [x = '', y = ''] = [a[line], b[line]];
  let col = 0;
  while (col < x.length && x[col] === y[col]) col++;
  const around = (s: string) => s.slice(Math.max(0, col - 60), col + 100);
  return `line ${line + 1}, column ${col + 1}:\n  committed: …${around(x)}\n  rendered:  …${around(y)}`;
}

describe('the committed benchmark pages', () => {
  let out: string;
  beforeAll(async () => {
    out = await render();
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it.each(PAGES)('%s is what bench/results/*.json renders', (committed, name) => {
    const expected = readFileSync(path.join(ROOT, committed), 'utf8');
    const actual = readFileSync(path.join(out, name), 'utf8');
    if (actual !== expected)
      throw new Error(
        `${committed} is not what the committed results render (re-render with \`pnpm bench -- --report-only\`, or undo the edit); ${firstDifference(expected, actual)}`,
      );
  });

  it('a changed figure in the results changes every page that shows it', async () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-results-'));
    cpSync(path.join(BENCH, 'results'), copy, { recursive: true });
    const file = path.join(copy, 'http.json');
    const http = JSON.parse(readFileSync(file, 'utf8'));
    // Fastify, Redis, allow: sluice's req/s ratio, shown in the summary of both pages and
    // the bar of the chart (its req/s).
    const sluice = http.cases.find((c: { id: string }) => c.id === 'fastify-redis').rows[1];
    sluice.ratio = 0.5;
    sluice.rps = 12_345;
    writeFileSync(file, JSON.stringify(http));
    const changed = await render(copy);
    try {
      for (const [committed, name] of PAGES)
        expect(readFileSync(path.join(changed, name), 'utf8')).not.toBe(
          readFileSync(path.join(ROOT, committed), 'utf8'),
        );
    } finally {
      rmSync(changed, { recursive: true, force: true });
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("bench:http:inproc's part: Hono's rows with their Δ over the headers-only floor, in the section and the chart", async () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-results-'));
    cpSync(path.join(BENCH, 'results'), copy, { recursive: true });
    /** A variant's row: CPU ns per request of each of 3 rounds' batches. */
    const row = (variant: string, label: string, batches: number[], none: number[]) => {
      const mean = batches.reduce((a, b) => a + b, 0) / batches.length;
      const noneMean = none.reduce((a, b) => a + b, 0) / none.length;
      return {
        variant,
        label,
        probe: '200 X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
        batches,
        meanNs: mean,
        deltaNs: mean - noneMean,
        deltaMedian: 0,
        deltaQ1: 0,
        deltaQ3: 0,
        ratio: noneMean / mean,
        httpRatio: 0.5,
      };
    };
    const none = [20_000, 20_000, 20_000];
    const inproc = {
      machine: { cores: 2, cpu: 'test CPU', node: 'v20', platform: 'linux x64' },
      pinned: true,
      batch: 2000,
      rounds: 3,
      httpUs: { hono: 20 },
      load: [0.5, 0.7],
      results: {
        hono: [
          row('none', 'unlimited', none, none),
          row('sluice', 'sluice', [30_000, 30_100, 30_200], none),
          row('peer', 'hono-rate-limiter', [40_000, 40_000, 40_300], none),
          row('headers', 'baseline: the 3 headers only', [22_000, 22_050, 22_100], none),
        ],
      },
    };
    writeFileSync(path.join(copy, 'inproc.json'), JSON.stringify(inproc));
    const runFile = path.join(copy, 'run.json');
    const run = JSON.parse(readFileSync(runFile, 'utf8'));
    run.parts.push({
      name: 'inproc',
      command: 'node src/http-inproc.ts',
      seconds: 10,
      exitCode: 0,
    });
    writeFileSync(runFile, JSON.stringify(run));
    const rendered = await render(copy);
    try {
      const results = readFileSync(path.join(rendered, 'results.md'), 'utf8');
      const section = results.slice(results.indexOf('## HTTP in-process'));
      // sluice over the floor: the per-round differences 8000, 8050, 8100.
      expect(section).toContain('| hono (HTTP 20 µs) | unlimited | 20000 | - | - | - |');
      expect(section).toContain(
        '| sluice | 30100 | +10100 | +10100 [+10050, +10150] | +8050 [+8025, +8075] |',
      );
      expect(section).toContain(
        '| hono-rate-limiter | 40100 | +20100 | +20000 [+20000, +20150] | +18000 [+17975, +18100] |',
      );
      const svg = readFileSync(path.join(rendered, 'benchmarks.svg'), 'utf8');
      const bars = [
        ...svg.matchAll(/aria-label="[^"]*case: ([^;]*); slot: \d+; limiter: ([^"]*)"/g),
      ].map((m) => `${m[1]!.replaceAll('|', ' ')} / ${m[2]}`);
      expect(bars).toEqual(
        expect.arrayContaining([
          'Hono on Node, memory, in-process / sluice',
          'Hono on Node, memory, in-process / hono-rate-limiter',
          'Hono on Node, memory, in-process / baseline: the 3 headers only',
        ]),
      );
    } finally {
      rmSync(rendered, { recursive: true, force: true });
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('the chart has a row for every package and store the results have (Hono, PostgreSQL, SQLite)', async () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-results-'));
    cpSync(path.join(BENCH, 'results'), copy, { recursive: true });
    // A Hono case in the HTTP results, and a bench:stores part with its rows.
    const httpFile = path.join(copy, 'http.json');
    const http = JSON.parse(readFileSync(httpFile, 'utf8'));
    const express = http.cases.find((c: { id: string }) => c.id === 'express-memory');
    http.cases.push({
      ...express,
      id: 'hono-memory',
      title: 'Hono, memory, allow',
      framework: 'hono',
      rows: express.rows.map((r: { limiter: string }) =>
        r.limiter === 'express-rate-limit' ? { ...r, limiter: 'hono-rate-limiter' } : r,
      ),
    });
    writeFileSync(httpFile, JSON.stringify(http));
    const row = (store: string, subject: string, rate: number) => ({
      store,
      subject,
      judged: subject.startsWith('sluice'),
      decisionsPerSecond: rate,
      rounds: [rate],
    });
    const stores = {
      keys: 10_000,
      inflight: 256,
      rounds: 1,
      ms: 300,
      rows: [
        row('postgres', 'sluice PostgresStore (pg)', 21_001),
        row('postgres', 'sluice PostgresStore (postgres.js)', 22_002),
        row('postgres', 'rate-limiter-flexible RateLimiterPostgres', 9_003),
        row('postgres', 'express-rate-limit + @acpr/rate-limit-postgresql', 4_004),
        row('sqlite', 'sluice SqliteStore, store.consume (sync)', 300_005),
        row('sqlite', 'sluice SqliteStore, RateLimiter.consume', 200_006),
        row('sqlite', 'rate-limiter-flexible RateLimiterSQLite (better-sqlite3)', 50_007),
        row('redis', 'sluice RedisStore (ioredis)', 90_008),
      ],
    };
    writeFileSync(path.join(copy, 'stores.json'), JSON.stringify(stores));
    const runFile = path.join(copy, 'run.json');
    const run = JSON.parse(readFileSync(runFile, 'utf8'));
    run.parts.push({ name: 'stores', command: 'src/stores.ts', seconds: 10, exitCode: 0 });
    writeFileSync(runFile, JSON.stringify(run));
    const rendered = await render(copy);
    try {
      const svg = readFileSync(path.join(rendered, 'benchmarks.svg'), 'utf8');
      // Each bar's aria-label names its case (`|`: where the label wraps) and limiter.
      const bars = [
        ...svg.matchAll(/aria-label="[^"]*case: ([^;]*); slot: \d+; limiter: ([^"]*)"/g),
      ].map((m) => `${m[1]!.replaceAll('|', ' ')} / ${m[2]}`);
      expect(bars).toEqual(
        expect.arrayContaining([
          'Hono, memory, allow / sluice',
          'Hono, memory, allow / hono-rate-limiter',
          'PostgreSQL, 10,000 keys / sluice',
          'PostgreSQL, 10,000 keys / sluice on postgres.js',
          'PostgreSQL, 10,000 keys / rate-limiter-flexible',
          'PostgreSQL, 10,000 keys / express-rate-limit + @acpr/rate-limit-postgresql',
          'SQLite, 10,000 keys / sluice SqliteStore, synchronous',
          'SQLite, 10,000 keys / sluice',
          'SQLite, 10,000 keys / rate-limiter-flexible',
          'Redis, 10,000 keys / sluice',
        ]),
      );
    } finally {
      rmSync(rendered, { recursive: true, force: true });
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
