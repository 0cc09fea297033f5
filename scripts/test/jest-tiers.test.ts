// CI's Node 22/24/26 runs (jest.node-majors.config.ts) leave out ONCE_PER_CI's files; a test
// that loads better-sqlite3 there fails on its addon, built for Node 20 (NODE_MODULE_VERSION
// 115; no build for another ABI is reachable here). Every such file must be listed.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ONCE_PER_CI } from '../jest/tiers';

const ROOT = join(__dirname, '..', '..');
const testFiles = execFileSync('git', ['ls-files', '*.test.ts'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const once = Object.keys(ONCE_PER_CI).map((pattern) => new RegExp(pattern));
const runsOnce = (file: string) => once.some((r) => r.test(`${ROOT}/${file}`));

it('every test file that loads better-sqlite3 runs once per CI, on Node 20', () => {
  const loading = testFiles.filter(
    (file) =>
      join(ROOT, file) !== __filename && // this file names the import in its pattern
      /from 'better-sqlite3'|require\('better-sqlite3'\)/.test(
        readFileSync(join(ROOT, file), 'utf8'),
      ),
  );
  expect(loading.length).toBeGreaterThan(5);
  expect(loading.filter((file) => !runsOnce(file))).toEqual([]);
});

it("node:sqlite's conformance still runs on every Node major", () => {
  expect(runsOnce('packages/sqlite/test/node-sqlite.test.ts')).toBe(false);
  expect(runsOnce('packages/sqlite/test/sqlite-store.test.ts')).toBe(true);
});
