// The fault matrix's cells beyond standalone Redis (PostgreSQL, SQLite, Sentinel and Cluster
// failovers) in the committed run, each row's shape, the CI subset's budget, and the heat
// map's inputs (heatmap.ts, pure) and its committed drawings. Files only: no process.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CellResult, Matrix } from '../src/faults/render.js';

// By their files: they import nothing but types, so jest's CommonJS loads them as they are.
const { render } =
  jest.requireActual<typeof import('../src/faults/render.js')>('../src/faults/render.ts');
const { band, heatmapCells } = jest.requireActual<typeof import('../src/faults/heatmap.js')>(
  '../src/faults/heatmap.ts',
);

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const matrix = (): Matrix => JSON.parse(read('bench/results/faults/matrix.json')) as Matrix;

const FIGURES = [
  'offered',
  'admitted',
  'denied',
  'errors',
  'limit',
  'over',
  'under',
  'lost',
  'p99AddedMs',
  'logLines',
  'crashes',
] as const;

/** The fault families each store or topology must have in the committed run. */
const FAMILIES: Record<string, string[]> = {
  PostgreSQL: ['pg-stop', 'pg-restart', 'pg-hold', 'pg-latency', 'pg-partition'],
  SQLite: ['sqlite-lock', 'sqlite-kill'],
  Sentinel: ['sentinel-failover'],
  Cluster: ['cluster-failover', 'cluster-migrate'],
};

describe('the cells on the other stores and topologies', () => {
  it.each(Object.entries(FAMILIES))(
    '%s: every fault has sluice rows of GCRA and, but for a kill, a fixed window',
    (_store, faults) => {
      const cells = matrix().cells;
      for (const fault of faults) {
        const of = cells.filter((c) => c.faultId === fault && c.peer === null);
        expect(of.map((c) => c.id)).toContainEqual(expect.stringMatching(/gcra/));
        if (!fault.endsWith('-kill') && !['pg-latency'].includes(fault))
          expect(of.map((c) => c.id)).toContainEqual(expect.stringMatching(/fixed/));
      }
    },
  );

  it('the policies deny, insurance and allow each meet PostgreSQL and SQLite', () => {
    const ids = matrix().cells.map((c) => c.id);
    for (const store of ['pg', 'sqlite'])
      for (const policy of ['deny', 'insurance', 'allow'])
        expect(ids).toContainEqual(
          expect.stringMatching(new RegExp(`sluice-${store}-\\w+-${policy}`)),
        );
  });

  it('every row has every figure, a count a whole number >= 0, and a bound of a sluice row', () => {
    for (const c of matrix().cells as CellResult[]) {
      for (const k of FIGURES) {
        const v = c.figures[k];
        expect({ id: c.id, k, ok: typeof v === 'number' && v >= 0 }).toEqual({
          id: c.id,
          k,
          ok: true,
        });
      }
      expect(c.figures.admitted + c.figures.denied + c.figures.errors).toBe(c.figures.offered);
      if (c.peer === null) expect(c.boundText.length).toBeGreaterThan(10);
      expect(c.ok).toBe(
        !(
          (c.bounds.over !== null && c.figures.over > c.bounds.over) ||
          (c.bounds.lost !== null && c.figures.lost > c.bounds.lost) ||
          (c.peer === null && c.figures.crashes > 0)
        ),
      );
    }
  });

  it('the CI subset (--quick) gained one new cell at most, and it needs no server', () => {
    const quick = matrix().cells.filter((c) => c.quick);
    const families = Object.values(FAMILIES).flat();
    const added = quick.filter((c) => families.includes(c.faultId));
    expect(added.map((c) => c.id)).toEqual(['sqlite-lock/sluice-sqlite-gcra-deny']);
    expect(quick.length).toBeLessThanOrEqual(13);
  });

  it('the page has a section and a rerun line for each new cell, and says the machine was shared', () => {
    const m = matrix();
    const page = render(m);
    for (const c of m.cells.filter((x) => Object.values(FAMILIES).flat().includes(x.faultId))) {
      expect(page).toContain(`## ${c.fault}\n`);
      expect(page).toContain(`pnpm faults -- --seed ${m.seed} --cell ${c.id}\n`);
    }
    expect(page).toContain('loaded-machine figures');
  });
});

describe('the heat map', () => {
  it('bands a cell by its over-admission against its bound', () => {
    expect(band(0, 0)).toBe('none over');
    expect(band(1, 0)).toBe('past its bound');
    expect(band(100, 400)).toBe('over, at most half its bound');
    expect(band(251, 400)).toBe('over, within its bound');
    expect(band(400, 400)).toBe('over, within its bound');
    expect(band(401, 400)).toBe('past its bound');
    expect(band(0, null)).toBe('no bound: none over');
    expect(band(299, null)).toBe('no bound: some over');
  });

  it('has one square per cell, each the row of its subject under its fault', () => {
    const m = matrix();
    const squares = heatmapCells(m);
    expect(squares).toHaveLength(m.cells.length);
    const stop = squares.find((s) => s.fault === 'stop' && s.subject === 'sluice-gcra-insurance');
    const row = m.cells.find((c) => c.id === 'stop/sluice-gcra-insurance')!;
    expect(stop).toMatchObject({ over: row.figures.over, bound: row.bounds.over });
    expect(stop!.text).toBe(`${Math.round((100 * row.figures.over) / row.bounds.over!)}%`);
    const keys = squares.map((s) => `${s.fault}/${s.subject}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('the committed drawings (light and dark) show every fault and subject of the matrix', () => {
    const squares = heatmapCells(matrix());
    const page = read('docs/reliability.md');
    for (const file of ['reliability.svg', 'reliability-dark.svg']) {
      const svg = read(`docs/${file}`);
      expect(page).toContain(`src="./${file}"`);
      for (const s of squares) {
        expect(svg).toContain(`>${s.fault}<`);
        expect(svg).toContain(`>${s.subject}<`);
      }
    }
  });
});
