// The import rules of `pnpm lint` (.dependency-cruiser.cjs, dependency-cruiser): a rule that
// stopped matching would pass every tree in silence, so each one must still fail a small
// tree that breaks it, the repository must pass, and every recorded exception must still
// match an import of today's code (an exception whose import is gone is dropped, not kept).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');

interface Exceptions {
  CORE: string;
  FLOOR_EXCEPTIONS: { name: string; from: string | string[]; to: string[] }[];
  CIRCLE_EXCEPTION: { name: string; files: string[] };
}
const { sluice } = require(CONFIG) as { sluice: Exceptions };

function depcruise(cwd: string, ...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(DEPCRUISE, ['--config', CONFIG, ...args], { cwd, encoding: 'utf8' });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

/** A tree shaped like the repository's, with one break of each rule. */
const FIXTURE: Record<string, string> = {
  'tsconfig.json': '{ "compilerOptions": { "module": "nodenext", "strict": true } }\n',
  // A circle in any package (type-only imports count).
  'packages/demo/src/one.ts': "import { two } from './two.js';\nexport const one = () => two;\n",
  'packages/demo/src/two.ts':
    "import type { one } from './one.js';\nexport const two: typeof one | 2 = 2;\n",
  // A wrong-way import: the core's common/ floor reading limits/.
  'packages/core/src/limits/limit.ts': 'export const limit = 1;\n',
  'packages/core/src/common/upward.ts':
    "import { limit } from '../limits/limit.js';\nexport const upward = limit;\n",
  // A `node:` module in the core.
  'packages/core/src/algorithms/hash.ts':
    "import { createHash } from 'node:crypto';\nexport const hash = createHash;\n",
  // An import down the floors: allowed.
  'packages/core/src/limits/down.ts':
    "import { upward } from '../common/upward.js';\nexport const down = upward;\n",
};

describe('the import rules (.dependency-cruiser.cjs)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-import-rules-'));
    for (const [file, text] of Object.entries(FIXTURE)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fail a tree with a circle, a wrong-way import and a node: import, naming each', () => {
    const { status, out } = depcruise(dir, 'packages');
    expect(status).not.toBe(0);
    expect(out).toMatch(
      /error no-circular: packages\/demo\/src\/one\.ts →\s+packages\/demo\/src\/two\.ts/,
    );
    expect(out).toContain(
      'error core-floors: common: packages/core/src/common/upward.ts → packages/core/src/limits/limit.ts',
    );
    expect(out).toContain(
      'error core-no-node-module: packages/core/src/algorithms/hash.ts → crypto',
    );
    // Nothing else: the import down the floors passes.
    expect(out).not.toContain('down.ts');
    expect(out).toMatch(/x 3 dependency violations \(3 errors, 0 warnings\)/);
  });

  describe('on the repository', () => {
    let result: { status: number | null; out: string };
    let modules: {
      source: string;
      dependencies: { resolved: string; circular: boolean; dependencyTypes: string[] }[];
    }[];
    beforeAll(() => {
      result = depcruise(ROOT, '--output-type', 'json', 'packages/*/src');
      modules = JSON.parse(result.out).modules;
    });

    it('every package passes', () => {
      const summary = JSON.parse(result.out).summary;
      expect(summary.violations).toEqual([]);
      expect(result.status).toBe(0);
      expect(summary.totalCruised).toBeGreaterThan(300);
    });

    it('every floor exception still matches an import', () => {
      const imports = new Set(
        modules.flatMap((m) => m.dependencies.map((d) => `${m.source} -> ${d.resolved}`)),
      );
      const core = 'packages/core/src/';
      const edges = sluice.FLOOR_EXCEPTIONS.flatMap((e) =>
        (Array.isArray(e.from) ? e.from : [e.from]).flatMap((from) =>
          e.to.map((to) => `${core}${from} -> ${core}${to}`),
        ),
      );
      expect(edges.length).toBeGreaterThan(3);
      expect(edges.filter((edge) => !imports.has(edge))).toEqual([]);
    });

    it("the circle exception's files are each still on a circle", () => {
      const onCircle = new Set(
        modules.filter((m) => m.dependencies.some((d) => d.circular)).map((m) => m.source),
      );
      const files = sluice.CIRCLE_EXCEPTION.files.map((f) => `packages/core/src/${f}`);
      expect(files.filter((f) => !onCircle.has(f))).toEqual([]);
    });
  });
});
