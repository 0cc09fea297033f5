import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunSummary, runtimeBinary, startWorkerd } from '@sluice/test-kit';
import { build } from 'esbuild';

const packages = join(__dirname, '..', '..');

/** The table runner (runtimes/table-runner.ts) as one ES module, the workspace's sources in it. */
async function bundleRunner(dir: string): Promise<string> {
  const outfile = join(dir, 'table-runner.mjs');
  await build({
    entryPoints: [join(__dirname, 'runtimes', 'table-runner.ts')],
    bundle: true,
    platform: 'node', // Bun and Deno serve `node:http` (the table's client that drops a connection)
    format: 'esm',
    outfile,
    logLevel: 'silent',
    alias: {
      '@sluice/core/http': join(packages, 'core/src/http/index.ts'),
      '@sluice/core/store': join(packages, 'core/src/store-api.ts'),
      '@sluice/core': join(packages, 'core/src/index.ts'),
      '@sluice/fetch': join(packages, 'fetch/src/index.ts'),
      '@sluice/test-kit': join(packages, 'test-kit/src/index.ts'),
    },
    // CommonJS dependencies bundled into ESM ask for `require`.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  return outfile;
}

/** The workerd runner (runtimes/workerd-runner.ts) as one neutral ES module, for a Worker. */
async function bundleWorkerRunner(): Promise<string> {
  const result = await build({
    entryPoints: [join(__dirname, 'runtimes', 'workerd-runner.ts')],
    bundle: true,
    write: false,
    // 'browser': the OpenTelemetry SDK the table's metrics rows use maps its Node parts away
    // with package.json `browser` fields (sluice's own neutrality is bundle.test.ts's).
    platform: 'browser',
    format: 'esm',
    conditions: ['workerd', 'worker'],
    logLevel: 'silent',
    alias: {
      '@sluice/core/http': join(packages, 'core/src/http/index.ts'),
      '@sluice/core/store': join(packages, 'core/src/store-api.ts'),
      '@sluice/core': join(packages, 'core/src/index.ts'),
      '@sluice/fetch': join(packages, 'fetch/src/index.ts'),
      '@sluice/test-kit': join(packages, 'test-kit/src/table.ts'),
      'node:http': join(__dirname, 'runtimes', 'node-http-stub.ts'),
    },
  });
  return result.outputFiles[0]!.text;
}

/** Runs `args` and resolves with the runner's summary line, parsed. */
function run(binary: string, args: string[]): Promise<{ summary: RunSummary; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', () => {
      const line = output.split('\n').find((l) => l.startsWith('SLUICE-TABLE '));
      if (line === undefined)
        reject(new Error(`no summary from ${binary}:\n${output.slice(-4000)}`));
      else resolve({ summary: JSON.parse(line.slice('SLUICE-TABLE '.length)), output });
    });
  });
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
      const { summary } = await run(runtimeBinary(runtime), [...args, runner]);
      const failures = summary.failures.map((f) => `${f.name}\n  ${f.error.split('\n')[0]}`);
      expect(failures).toEqual([]);
      expect(summary.failed).toBe(0);
      // Every row of every table, for both adapters (59 each when this was written).
      expect(summary.passed).toBe(summary.collected);
      expect(summary.collected).toBeGreaterThanOrEqual(2 * 59);
    },
    240_000,
  );

  it('every row passes on workerd (without nodejs_compat), but the two that drop a real connection', async () => {
    const worker = await startWorkerd(await bundleWorkerRunner(), { compatibilityFlags: [] });
    try {
      const summary = (await (await fetch(`${worker.url}/run`)).json()) as RunSummary & {
        skipped: string[];
        reasons: Record<string, string>;
      };
      const failures = summary.failures.map((f) => `${f.name}\n  ${f.error.split('\n')[0]}`);
      expect(failures).toEqual([]);
      expect(summary.failed).toBe(0);
      // Listed with their reason in workerd-runner.ts: 2 rows x 2 adapters.
      expect(summary.skipped).toHaveLength(4);
      expect(summary.passed).toBe(summary.collected - 4);
    } finally {
      await worker.stop();
    }
  }, 240_000);
});
