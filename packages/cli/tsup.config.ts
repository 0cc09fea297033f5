import { defineConfig } from 'tsup';

// The library entry (runCli) as ESM and CommonJS with types; the `sluice` bin as ESM (its
// `#!/usr/bin/env node` line is kept by esbuild). better-sqlite3, an optional dependency
// (tsup externalises only dependencies and peers), is loaded from node_modules, never bundled.
const external = ['better-sqlite3'];

export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: false,
    platform: 'node',
    target: 'es2022',
    external,
  },
  {
    entry: { bin: 'src/bin.ts' },
    format: ['esm'],
    sourcemap: false,
    platform: 'node',
    target: 'es2022',
    external,
  },
]);
