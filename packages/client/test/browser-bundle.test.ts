import path from 'node:path';

// @sluice/client runs in browsers and edge runtimes: bundled for the browser (esbuild, as
// tsup uses it), with @sluice/core/duration and /shared taken from their source, it reaches
// no `node:` module, and of @sluice/core it holds the duration parser, SluiceConfigError and
// closestName only (with `ms`), not the core's limiter, stores or HTTP pipeline.
/** What this test uses of esbuild (tsup's; not a dependency of the workspace root). */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{
    metafile: { inputs: Record<string, unknown> };
    outputFiles: { text: string }[];
  }>;
}
const esbuild = require(
  require.resolve('esbuild', { paths: [path.dirname(require.resolve('tsup'))] }),
) as Esbuild;
const PACKAGES = path.join(__dirname, '..', '..');

test('bundles for the browser with no node: module; of the core only the duration parser, SluiceConfigError and closestName', async () => {
  const result = await esbuild.build({
    entryPoints: [path.join(PACKAGES, 'client', 'src', 'index.ts')],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'browser',
    format: 'esm',
    logLevel: 'silent',
    alias: {
      '@sluice/core/duration': path.join(PACKAGES, 'core', 'src', 'duration-api.ts'),
      '@sluice/core/shared': path.join(PACKAGES, 'core', 'src', 'shared-api.ts'),
    },
  });
  const inputs = Object.keys(result.metafile.inputs);
  const core = inputs
    .filter((file) => file.includes('packages/core/'))
    .map((file) => file.slice(file.indexOf('packages/core/src/') + 'packages/core/src/'.length))
    .sort();
  expect(core).toEqual([
    'common/closest-name.ts',
    'common/duration.ts',
    'common/errors.ts',
    'common/process-global.ts',
    'duration-api.ts',
    'shared-api.ts',
  ]);
  // The core reads durations with its port of the `ms` package's parser: no `ms` in a bundle.
  expect(inputs.filter((file) => /node_modules\/.*\/ms\//.test(file))).toEqual([]);
  expect(inputs.filter((file) => file.startsWith('node:'))).toEqual([]);
  expect(result.outputFiles[0]!.text).not.toMatch(/from ["']node:/);
});
