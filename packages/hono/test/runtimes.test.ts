import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bundleForRuntime,
  bundleTableForWorkerd,
  type RunSummary,
  runForLine,
  runtimeBinary,
  startWorkerd,
  workspaceAliases,
} from '@sluice/test-kit';

const kit = join(__dirname, '..', '..', 'test-kit', 'src', 'table.ts');

/** The table runner (runtimes/table-runner.ts) as one ES module, the workspace's sources in it. */
const bundleRunner = (dir: string) =>
  bundleForRuntime(
    join(__dirname, 'runtimes', 'table-runner.ts'),
    join(dir, 'table-runner.mjs'),
    workspaceAliases(['fetch'], { '@sluice/test-kit': kit }),
  );

/** The workerd runner (runtimes/workerd-runner.ts) as one ES module, for a Worker. */
const bundleWorkerRunner = () =>
  bundleTableForWorkerd(join(__dirname, 'runtimes', 'workerd-runner.ts'));

/** Runs `args` and resolves with the runner's summary line, parsed. */
async function run(binary: string, args: string[]) {
  const { value } = await runForLine<RunSummary & { skipped: string[] }>(
    binary,
    args,
    'SLUICE-TABLE ',
  );
  return value;
}

describe('the shared behaviour table through @sluice/fetch and @sluice/hono on Bun and Deno (from npm)', () => {
  let dir: string;
  let runner: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-runtimes-'));
    runner = await bundleRunner(dir);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['bun', ['run', '--smol']],
    ['deno', ['run', '--allow-all', '--quiet']],
  ] as const)(
    'every row passes on %s',
    async (runtime, args) => {
      const summary = await run(runtimeBinary(runtime), [...args, runner]);
      const failures = summary.failures.map((f) => `${f.name}\n  ${f.error.split('\n')[0]}`);
      expect(failures).toEqual([]);
      expect(summary.failed).toBe(0);
      // Every row of every table, for both adapters (70 each when this was written): no open
      // bug listed in table-runner.ts (FETCH_RUNTIME_OPEN).
      expect(summary.skipped).toEqual([]);
      expect(summary.passed).toBe(summary.collected);
      expect(summary.collected).toBeGreaterThanOrEqual(2 * 70);
    },
    240_000,
  );

  it('every row passes on workerd (without nodejs_compat), but the three that drop a real connection', async () => {
    const worker = await startWorkerd(await bundleWorkerRunner(), { compatibilityFlags: [] });
    try {
      const summary = (await (await fetch(`${worker.url}/run`)).json()) as RunSummary & {
        skipped: string[];
        reasons: Record<string, string>;
      };
      const failures = summary.failures.map((f) => `${f.name}\n  ${f.error.split('\n')[0]}`);
      expect(failures).toEqual([]);
      expect(summary.failed).toBe(0);
      // Listed with their reason in workerd-runner.ts: 3 rows x 2 adapters.
      expect(summary.skipped).toHaveLength(6);
      expect(summary.passed).toBe(summary.collected - 6);
    } finally {
      await worker.stop();
    }
  }, 240_000);
});
