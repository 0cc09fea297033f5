// docs/reliability.md must be what `pnpm faults -- --report-only` renders from
// bench/results/faults/matrix.json, byte for byte (the renderer is pure: no process needed).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CellResult, Matrix } from '../src/faults/render.js';

// The renderer by its file: it imports nothing but types, so jest's CommonJS loads it as is.
const { render } =
  jest.requireActual<typeof import('../src/faults/render.js')>('../src/faults/render.ts');

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const matrix = (): Matrix => JSON.parse(read('bench/results/faults/matrix.json')) as Matrix;

describe('the committed fault matrix page', () => {
  it('docs/reliability.md is what bench/results/faults/matrix.json renders', () => {
    const expected = read('docs/reliability.md');
    const actual = render(matrix());
    if (actual !== expected) {
      const a = expected.split('\n');
      const b = actual.split('\n');
      const line = a.findIndex((x, n) => x !== b[n]);
      throw new Error(
        `docs/reliability.md is stale (re-render with \`pnpm faults -- --report-only\`): line ${line + 1}\n  committed: ${a[line]}\n  rendered:  ${b[line]}`,
      );
    }
  });

  it('a changed figure changes the page', () => {
    const m = matrix();
    const before = render(m);
    m.cells[0]!.figures.admitted += 1;
    expect(render(m)).not.toBe(before);
  });

  it('holds at least 30 cells with figures, sluice and peers from one run, each rerunnable', () => {
    const m = matrix();
    expect(m.quick).toBe(false);
    expect(m.cells.filter((c: CellResult) => c.figures.offered > 0).length).toBeGreaterThanOrEqual(
      30,
    );
    expect(m.cells.some((c: CellResult) => c.peer !== null)).toBe(true);
    const page = read('docs/reliability.md');
    for (const c of m.cells as CellResult[]) expect(page).toContain(`--cell ${c.id}\n`);
    expect(new Set(m.cells.map((c: CellResult) => c.id)).size).toBe(m.cells.length);
  });

  it('every sluice cell of the committed run is within its documented bound', () => {
    const broken = matrix()
      .cells.filter((c: CellResult) => c.peer === null && !c.ok)
      .map((c: CellResult) => c.id);
    expect(broken).toEqual([]);
  });
});
