// Runs a TypeScript worker in a child process straight from the sources, with no prior
// build: `fork(tsWorkerPath(), ['/abs/path/worker.ts'])` (see store-conformance.ts).
// tsx transpiles .ts on require (CommonJS); `@sluice/<name>` resolves to
// packages/<name>/src/index.ts (`@sluice/core/<subpath>` to its entry), `./x.js` to
// `./x.ts`, and with SLUICE_IOREDIS=5 `ioredis` to the `ioredis5` alias (ioredis 5), as
// jest.config.ts's moduleNameMapper does for the tests.
const Module = require('node:module');
const { existsSync } = require('node:fs');
const path = require('node:path');

const packagesDir = path.resolve(__dirname, '..', '..');
const resolve = Module._resolveFilename;
// @sluice/core's subpaths and their source entries (package.json `exports`).
const CORE_ENTRIES = {
  '@sluice/core/http': 'http/index.ts',
  '@sluice/core/store': 'store-api.ts',
  '@sluice/core/protocol': 'protocol-api.ts',
  '@sluice/core/duration': 'duration-api.ts',
  '@sluice/core/shared': 'shared-api.ts',
};
Module._resolveFilename = function resolveTs(request, parent, ...rest) {
  if (request === 'ioredis' && process.env.SLUICE_IOREDIS === '5') {
    return resolve.call(this, 'ioredis5', parent, ...rest);
  }
  const entry = CORE_ENTRIES[request];
  if (entry) return resolve.call(this, path.join(packagesDir, 'core/src', entry), parent, ...rest);
  const named = /^@sluice\/([a-z-]+)$/.exec(request);
  if (named) {
    return resolve.call(this, path.join(packagesDir, named[1], 'src', 'index.ts'), parent, ...rest);
  }
  if (request.startsWith('.') && request.endsWith('.js') && parent?.filename?.endsWith('.ts')) {
    const ts = path.resolve(path.dirname(parent.filename), `${request.slice(0, -3)}.ts`);
    if (existsSync(ts)) return ts;
  }
  return resolve.call(this, request, parent, ...rest);
};

// perf: tsx (esbuild) transpiles on require: about 0.3 s of CPU to start a worker on the
// whole of core and a store, against 3.3 s with ts-node (measured on 2026-12-02); every
// multi-process test starts four.
require('tsx/cjs/api').register();

const worker = process.argv[2];
if (!worker) throw new Error('usage: ts-worker.cjs <worker.ts>');
require(path.resolve(worker));
