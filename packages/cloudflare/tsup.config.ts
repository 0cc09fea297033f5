import { defineConfig } from 'tsup';

// Workers (and any fetch runtime): ESM and CommonJS builds with their types, no Node
// built-in (platform neutral: nothing is shimmed).
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: false,
  platform: 'neutral',
  target: 'es2022',
});
