import { defineConfig } from 'tsup';

export default defineConfig({
  // `@sluice/core`, the adapters' `@sluice/core/http` and the stores' `@sluice/core/store`; their shared modules are one chunk
  // in both formats (`splitting`), so the entries share module state (the default
  // stores, the skip marks, the `throttles` registry).
  entry: {
    index: 'src/index.ts',
    'http/index': 'src/http/index.ts',
    'store/index': 'src/store-api.ts',
    // `@sluice/core/duration`: the duration parser alone, for @sluice/client.
    'duration/index': 'src/duration-api.ts',
    // `@sluice/core/shared`: SluiceConfigError and HeaderStyle, for @sluice/client.
    'shared/index': 'src/shared-api.ts',
  },
  format: ['esm', 'cjs'],
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // No `shims`: they add bare `path`/`url` imports to the ESM build, which Workers and
  // `--platform=neutral` bundles cannot resolve (the core runs on every runtime, DESIGN §15).
  // The ESM build learns its own URL from `import.meta.url` instead: where metrics.ts resolves
  // the optional @opentelemetry/api from (CommonJS has `__filename`).
  shims: false,
  banner: (ctx) =>
    ctx.format === 'esm' ? { js: 'const __sluiceModuleUrl = import.meta.url;' } : {},
});
