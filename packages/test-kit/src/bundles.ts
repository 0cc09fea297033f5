import { spawn } from 'node:child_process';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';

/**
 * What the tests that bundle sluice with esbuild share (a Worker's bundle, a runner for Bun
 * or Deno) and how they run the result on a runtime's binary. esbuild is imported when a
 * bundle is built, not by every test that imports the test-kit.
 */

// A function: the bench loads the test kit as ES modules, where `__dirname` exists only in jest.
const packagesDir = (): string => join(__dirname, '..', '..');

/**
 * The workspace packages' sources (as jest maps them), not their dist, as esbuild aliases:
 * `@sluice/core` and its subpaths, `@sluice/<name>` for each name given, and `extra` (a
 * specifier → a path, e.g. a stub for `node:http`).
 */
export function workspaceAliases(
  names: readonly string[] = [],
  extra: Record<string, string> = {},
): Record<string, string> {
  const alias: Record<string, string> = {
    '@sluice/core/http': join(packagesDir(), 'core/src/http/index.ts'),
    '@sluice/core/store': join(packagesDir(), 'core/src/store-api.ts'),
    '@sluice/core/protocol': join(packagesDir(), 'core/src/protocol-api.ts'),
    '@sluice/core/duration': join(packagesDir(), 'core/src/duration-api.ts'),
    '@sluice/core/shared': join(packagesDir(), 'core/src/shared-api.ts'),
    '@sluice/core': join(packagesDir(), 'core/src/index.ts'),
  };
  for (const name of names) alias[`@sluice/${name}`] = join(packagesDir(), name, 'src/index.ts');
  return { ...alias, ...extra };
}

/** A bundle built in memory: its code, what it leaves to resolve, the modules in it. */
export interface Bundle {
  code: string;
  /** The imports esbuild left in the output (none for a self-contained bundle). */
  imports: unknown[];
  /** The modules that put code in the bundle (the others were read, then shaken out). */
  inputs: string[];
}

/** Options of {@link bundleForWorker}: esbuild's, over the Worker defaults. */
export type WorkerBundleOptions = Omit<BuildOptions, 'entryPoints' | 'write' | 'outfile'>;

/**
 * `entry` bundled as a user's Worker would be: esbuild, `--platform=neutral`, ES module,
 * minified, the `workerd`/`worker`/`browser` conditions, in memory; `options` override
 * (`alias`: see {@link workspaceAliases}; `define`, `external`, `platform`…).
 */
export async function bundleForWorker(
  entry: string,
  options: WorkerBundleOptions = {},
): Promise<Bundle> {
  const { build } = await import('esbuild');
  const result = await build({
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    minify: true,
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    logLevel: 'silent',
    ...options,
    entryPoints: [entry],
    write: false,
    metafile: true,
  });
  const outputs = Object.values(result.metafile.outputs);
  return {
    code: result.outputFiles[0]!.text,
    imports: outputs.flatMap((o) => o.imports),
    inputs: outputs.flatMap((o) =>
      Object.entries(o.inputs).flatMap(([path, input]) => (input.bytesInOutput > 0 ? [path] : [])),
    ),
  };
}

/**
 * A runner of the behaviour table for workerd (without `nodejs_compat`) as one ES module:
 * `--platform=browser` (the OpenTelemetry SDK the table's metrics rows use maps its Node
 * parts away with package.json `browser` fields; sluice's own neutrality is what
 * {@link bundleForWorker} tests), `@sluice/test-kit` as its Node-free part (table.ts),
 * `node:http` as a stub that throws (the rows that drop a real connection cannot run there).
 */
export async function bundleTableForWorkerd(entry: string): Promise<string> {
  const { code } = await bundleForWorker(entry, {
    platform: 'browser',
    mainFields: ['browser', 'module', 'main'],
    conditions: ['workerd', 'worker'],
    minify: false,
    alias: workspaceAliases(['fetch'], {
      '@sluice/test-kit': join(__dirname, 'table.ts'),
      'node:http': join(__dirname, 'node-http-stub.ts'),
    }),
  });
  return code;
}

/**
 * `entry` bundled into `outfile` as one ES module for Bun or Deno (`--platform=node`: they
 * serve `node:http` and the other built-ins), with a `require` for the CommonJS dependencies
 * bundled into it. `alias`: see {@link workspaceAliases}.
 */
export async function bundleForRuntime(
  entry: string,
  outfile: string,
  alias: Record<string, string>,
): Promise<string> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
    alias,
    // CommonJS dependencies bundled into ESM ask for `require`.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  return outfile;
}

/**
 * The Node built-ins `code` imports or requires (static, dynamic, CommonJS; `node:` ones
 * and bare names such as `fs`): none in a bundle that runs without `nodejs_compat`.
 */
export function nodeBuiltinsIn(code: string): string[] {
  const builtins = new Set(builtinModules);
  return [
    ...code.matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s*)["'`]([^"'`]+)["'`]/g,
    ),
  ]
    .map((m) => m[1]!)
    .filter((s) => s.startsWith('node:') || builtins.has(s));
}

/**
 * Runs `binary` with `args` (a bundle on Bun or Deno) to its exit and resolves with the JSON
 * of the first output line that starts with `prefix` (and the whole output); rejects with
 * the output's end when there is none.
 */
export function runForLine<T>(
  binary: string,
  args: readonly string[],
  prefix: string,
): Promise<{ value: T; output: string }> {
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
      const line = output.split('\n').find((l) => l.startsWith(prefix));
      if (line === undefined)
        reject(new Error(`no ${prefix} line from ${binary}:\n${output.slice(-4000)}`));
      else resolve({ value: JSON.parse(line.slice(prefix.length)) as T, output });
    });
  });
}
