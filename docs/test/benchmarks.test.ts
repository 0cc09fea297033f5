// The benchmarks page is a summary a reader takes in at a glance: the chart first, then one
// table; the full results (every round, every peer, each target and its gap) are
// bench/results.md in the repository, not on the site. `pnpm bench` writes both; its
// writer (bench/src/report/render.ts, the templates in bench/templates/) is ESM, so it runs in a
// child process here, on a run with no part measured.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './markdown.js';
import { DOCS, run, TSX } from './paths.js';

jest.setTimeout(120_000);

/** What a short page looks like: chart right after the title, at most one table. */
function expectSummaryPage(page: string): void {
  const blocks = page.split(/\n\s*\n/).map((b) => b.trim());
  expect(blocks[0]).toBe('# Benchmarks');
  // The chart in the site's light and dark theme (Plot.vue's classes show one).
  expect(blocks[1]).toMatch(/^<figure class="plot">/);
  expect(blocks[1]).toContain('class="plot-light" src="./benchmarks.svg"');
  expect(blocks[1]).toContain('class="plot-dark" src="./benchmarks-dark.svg"');
  expect(page.split('\n').length).toBeLessThanOrEqual(60);
  expect(page.match(/^\| --- /gm)?.length ?? 0).toBeLessThanOrEqual(1);
  expect(page).toContain('bench/results.md');
  expect(page).not.toMatch(/DESIGN|§/);
}

describe('the benchmarks page', () => {
  it('docs/benchmarks.md is the chart, then a summary; the log is bench/results.md', () => {
    expectSummaryPage(readFileSync(path.join(DOCS, 'benchmarks.md'), 'utf8'));
    const results = readFileSync(path.join(ROOT, 'bench', 'results.md'), 'utf8');
    expect(results).toMatch(/^# Benchmark results\n/);
    expect(results).toContain('](../docs/benchmarks.svg)');
    expect(results).not.toMatch(/DESIGN|§\d/);
  });

  it('its chart is drawn for a phone: at most 390 px wide, text at 11 px or more on a 390 px screen', () => {
    for (const file of ['benchmarks.svg', 'benchmarks-dark.svg']) {
      const svg = readFileSync(path.join(DOCS, file), 'utf8');
      const width = Number(/^<svg [^>]*width="([\d.]+)"/.exec(svg)?.[1]);
      expect(width).toBeLessThanOrEqual(390);
      const sizes = [...svg.matchAll(/font-size="([\d.]+)px"/g)].map((m) => Number(m[1]));
      expect(sizes.length).toBeGreaterThan(20);
      // A 390 px screen shows the site's text column about 342 px wide (24 px margins).
      expect(Math.min(...sizes) * Math.min(1, 342 / width)).toBeGreaterThanOrEqual(11);
    }
  });

  it('pnpm bench writes the page in that form, and the results without design citations', async () => {
    const script = `
      import { renderPage, renderResults } from ${JSON.stringify(path.join(ROOT, 'bench/src/report/render.ts'))};
      const run = {
        date: '2030-01-01T00:00:00Z', command: 'pnpm bench', quick: false,
        machine: { cores: 2, cpu: 'a CPU', memGiB: 8, os: 'an OS', node: 'v20', redis: '7.0',
          loadBefore: [0.1, 0.1, 0.1], loadAfter: [0.1, 0.1, 0.1] },
        parts: [], totalSeconds: 600,
      };
      const page = renderPage({ run }, 'benchmarks.svg');
      const results = renderResults({ run }, '../docs/benchmarks.svg');
      console.log(JSON.stringify({ page, results }));
    `;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-report-'));
    const file = path.join(dir, 'render.mts');
    writeFileSync(file, script);
    const { code, out } = await run(TSX, [file]).finally(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
    const line = out.split('\n').find((l) => l.startsWith('{"page"'));
    if (line === undefined) throw new Error(`the report writers printed nothing:\n${out}`);
    expect(code).toBe(0);
    const { page, results } = JSON.parse(line) as { page: string; results: string };
    expectSummaryPage(page);
    expect(results).toMatch(/^# Benchmark results\n/);
    expect(results).not.toMatch(/DESIGN|§\d/);
  });
});
