import { defineConfig } from 'tsup';

// Node (and Bun) servers: ESM and CommonJS builds with their types.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: false,
  platform: 'node',
  target: 'es2022',
});
