// The algorithms page shows what the core decides: its table and the login figures are
// recomputed here with the real limiter, and the page must agree.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gcra, leakyBucket, MemoryStore, RateLimiter, tokenBucket } from '@sluice/core';
import { admittedBefore, run, SCENARIOS, summaryTable } from '../scripts/traffic.js';
import { DOCS } from './paths.js';

const page = readFileSync(path.join(DOCS, 'guide', 'algorithms.md'), 'utf8');
const login = SCENARIOS.find((s) => s.id === 'login')!;

describe('docs/guide/algorithms.md', () => {
  it("'throttle:5,1', one attempt a second: GCRA admits 9 in the first minute, fixed window 5, sliding log 5, sliding window 8", () => {
    const first = (kind: Parameters<typeof run>[0]) =>
      admittedBefore(run(kind, login.times), 60_000);
    expect(first('gcra')).toBe(9);
    expect(first('fixed-window')).toBe(5);
    expect(first('sliding-log')).toBe(5);
    expect(first('sliding-window')).toBe(8);
  });

  it('contains the table of admitted requests as the core computes it', () => {
    // Compared cell by cell: the formatter pads markdown tables.
    const rows = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('|') && !/^\|[\s|-]+\|$/.test(l))
        .map((l) => l.split('|').map((c) => c.trim()));
    const onPage = rows(page);
    for (const row of rows(summaryTable())) expect(onPage).toContainEqual(row);
  });

  it('shows a plot per scenario', () => {
    for (const s of SCENARIOS)
      expect(page).toMatch(new RegExp(`<Plot name="${s.id}" alt="[^"]+" />`));
  });

  it('GCRA, token bucket and leaky bucket with the same rate and burst decide alike', async () => {
    const algorithms = [
      gcra({ rate: 5, period: '1m', burst: 5 }),
      tokenBucket({ capacity: 5, refillRate: 5, refillInterval: '1m' }),
      leakyBucket({ capacity: 5, leakRate: '5/min' }),
    ];
    const traces: boolean[][] = [];
    for (const algorithm of algorithms) {
      let now = Date.UTC(2030, 0, 1);
      const limiter = new RateLimiter({ algorithm, store: new MemoryStore(), clock: () => now });
      const trace: boolean[] = [];
      for (const t of login.times) {
        now = Date.UTC(2030, 0, 1) + t;
        trace.push((await limiter.consume('k')).allowed);
      }
      traces.push(trace);
    }
    expect(traces[1]).toEqual(traces[0]);
    expect(traces[2]).toEqual(traces[0]);
  });
});
