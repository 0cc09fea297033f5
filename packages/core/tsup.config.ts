import { defineConfig } from 'tsup';

// The six entries: `@sluice/core`, the adapters' `@sluice/core/http`, the stores'
// `@sluice/core/store`, the front doors' `@sluice/core/protocol`, `@sluice/core/duration`
// (the duration parser alone, for @sluice/client) and `@sluice/core/shared`
// (SluiceConfigError and HeaderStyle).
const entries = {
  index: 'src/index.ts',
  'http/index': 'src/http/index.ts',
  'store/index': 'src/store-api.ts',
  'protocol/index': 'src/protocol-api.ts',
  'duration/index': 'src/duration-api.ts',
  'shared/index': 'src/shared-api.ts',
};

// No source maps in the published build (they doubled the tarball). No `shims`: they add
// bare `path`/`url` imports, which Workers and `--platform=neutral` bundles cannot resolve
// (the core runs on every runtime, docs/guide/hono.md).
const common = { target: 'node20', sourcemap: false, shims: false } as const;

export default defineConfig([
  // ESM, one file per source module (`bundle: false`): an application's bundler, told by
  // `sideEffects: false`, drops every module the app never reaches, as it does from the
  // sources. A bundled build put the modules that the entries share into chunks, and
  // whatever a chunk's kept code sat beside (ipaddr.js, the operator entries' answers) went
  // into every Worker: 44.7 KB gzip against the sources' 32.7 KB. The ESM build learns its
  // own URL from `import.meta.url` (where metrics.ts and luxon.ts resolve their optional
  // packages from): `__sluiceModuleUrl` is replaced by it in this build only.
  {
    ...common,
    entry: ['src/**/*.ts'],
    format: ['esm'],
    bundle: false,
    dts: { entry: entries },
    define: { __sluiceModuleUrl: 'import.meta.url' },
    // The two builds share dist/: each cleans all but the other's files.
    clean: ['!**/*.cjs'],
  },
  // CommonJS for `require`: bundled, the entries' shared modules one chunk (`splitting`) so
  // that they share module state (the default stores, the skip marks, the `throttles` registry).
  {
    ...common,
    entry: entries,
    format: ['cjs'],
    splitting: true,
    dts: { entry: entries },
    clean: ['!**/*.js'],
  },
]);
