// scripts/jest/sequencer.cjs, the order `pnpm test` starts its files in: the files of
// durations.json first, longest first; every other file still runs, after them, in jest's
// order; a file that failed last time before all. durations.json names only files that exist.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import config from '../../jest.config';
import majors from '../../jest.node-majors.config';
import quick from '../../jest.quick.config';

const ROOT = path.join(__dirname, '..', '..');
/** What the sequencer reads of a test file jest hands it (@jest/test-result's Test). */
interface Test {
  path: string;
  duration?: number;
  context: unknown;
}
// A CommonJS module of the jest config, loaded as jest loads it.
const Sequencer = require('../jest/sequencer.cjs') as new (
  options: unknown,
) => {
  sort(tests: Test[]): Test[];
  hasFailed(test: Test): boolean;
};
const DURATIONS = require('../jest/durations.json') as { seconds: Record<string, number> };

const cacheDirectory = mkdtempSync(path.join(os.tmpdir(), 'sluice-sequencer-'));
afterAll(() => rmSync(cacheDirectory, { recursive: true, force: true }));

/** A test file as jest hands it to the sequencer: no cached run, `bytes` long. */
function file(relative: string, bytes: number): Test {
  return {
    path: path.join(ROOT, relative),
    context: {
      config: { rootDir: ROOT, cache: false, cacheDirectory, id: 'sequencer-test' },
      hasteFS: { getSize: () => bytes },
    },
  };
}

const names = (tests: Test[]) => tests.map((t) => path.relative(ROOT, t.path));

it("no config sets the sequencer yet: jest's own order (see CONTRIBUTING.md)", () => {
  for (const c of [config, quick, majors]) expect(c.testSequencer).toBeUndefined();
});

it('durations.json names test files that exist, each with its seconds', () => {
  const listed = Object.entries(DURATIONS.seconds);
  expect(listed.length).toBeGreaterThan(10);
  for (const [name, seconds] of listed) {
    expect([name, existsSync(path.join(ROOT, name))]).toEqual([name, true]);
    expect(name).toMatch(/\.test\.ts$/);
    expect(seconds).toBeGreaterThan(0);
  }
});

it('runs the listed files first, longest first, then every other file in jest order', () => {
  const listed = Object.entries(DURATIONS.seconds).sort((a, b) => b[1] - a[1]);
  const [longest, second] = [listed[0]![0], listed[1]![0]];
  const shortest = listed[listed.length - 1]![0];
  // Sizes that jest's own order (largest first) would run the wrong way round.
  const tests = [
    file('packages/core/test/not-listed-small.test.ts', 10),
    file(shortest, 50_000),
    file(second, 20),
    file('packages/core/test/not-listed-big.test.ts', 90_000),
    file(longest, 30),
  ];
  const sorted = names(new Sequencer({}).sort(tests));
  expect(sorted).toEqual([
    longest,
    second,
    shortest,
    'packages/core/test/not-listed-big.test.ts',
    'packages/core/test/not-listed-small.test.ts',
  ]);
});

it('a file missing from the list still runs, and nothing runs twice', () => {
  const tests = [
    file('packages/core/test/brand-new.test.ts', 1),
    ...Object.keys(DURATIONS.seconds).map((name) => file(name, 100)),
  ];
  const sorted = names(new Sequencer({}).sort(tests));
  expect(sorted).toHaveLength(tests.length);
  expect(new Set(sorted).size).toBe(tests.length);
  expect(sorted).toContain('packages/core/test/brand-new.test.ts');
});

it('a file that failed in the last run (jest cache) still comes before the listed ones', () => {
  const [longest] = Object.entries(DURATIONS.seconds).sort((a, b) => b[1] - a[1])[0]!;
  const failed = file('packages/core/test/failed-last-time.test.ts', 1);
  const sequencer = new Sequencer({});
  const hasFailed = sequencer.hasFailed.bind(sequencer);
  sequencer.hasFailed = (test) => test === failed || hasFailed(test);
  expect(names(sequencer.sort([file(longest, 1), failed]))).toEqual([
    'packages/core/test/failed-last-time.test.ts',
    longest,
  ]);
});
