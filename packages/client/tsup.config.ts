import { defineConfig } from 'tsup';

// Browsers and edge runtimes as well as Node: no node: import, a neutral platform.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: false,
  platform: 'neutral',
  target: 'es2022',
});
