// Any runtime with fetch (Node, Bun, Deno, Workers): ESM and CommonJS builds with their types.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: false,
  target: 'node20',
});
