import { defineConfig } from 'tsup';

export default defineConfig({
  // `@sluice/core` and the adapters' `@sluice/core/http`; their shared modules are one chunk
  // in both formats (`splitting`), so the two entries share module state (the default
  // stores, the skip marks, the `throttles` registry).
  entry: { index: 'src/index.ts', 'http/index': 'src/http/index.ts' },
  format: ['esm', 'cjs'],
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // `__filename` in the ESM build too: where metrics.ts resolves the optional @opentelemetry/api from.
  shims: true,
});
