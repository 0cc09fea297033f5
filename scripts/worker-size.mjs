#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
// The Hono Worker check on what users install: a Hono app limited by @sluice/hono with the
// memory store (packages/hono/test/fixtures/worker-app.ts), written into <app dir> (where the packed tarballs and hono are installed,
// e.g. by .ci/user-install or `npm install .packed/sluice-{core,fetch,hono}-*.tgz hono@4`),
// bundled as a Worker is (esbuild, --platform=neutral, ES module, minified, the workerd
// conditions). Prints the gzip size of sluice's part (the bundle without Hono) and fails
// when it is above 32 KB (docs/guide/hono.md), when the bundle holds a Node built-in or
// leaves an import to resolve, or when code an app limited by throttle strings never
// reaches (calendar quotas and luxon, adaptive limits, the operator entries' answers,
// ipaddr.js) is in it.
//
//   node scripts/worker-size.mjs <app dir>
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const LIMIT_BYTES = 32 * 1024;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// esbuild from the workspace (packages/hono's devDependency), not from the app.
const { build } = createRequire(join(root, 'packages', 'hono', 'package.json'))('esbuild');

const APP = `import { Hono } from 'hono';
import { MemoryStore, rateLimit, throttle } from '@sluice/hono';

const app = new Hono();
app.use(rateLimit({ limit: '100/min', store: new MemoryStore() }));
app.get('/__ready', (c) => c.text('ready'));
app.get('/users/:id', throttle('2/min'), (c) =>
  c.json({ id: c.req.param('id'), remaining: c.get('rateLimit').remaining }),
);
export default app;
`;

/** What an app limited by throttle strings never reaches (paths in the packed dist). */
const UNUSED =
  /calendar-window|luxon|adaptive-concurrency|gradient2|aimd|loop-delay|ipaddr|\/ms\/|memory-sync|operations\/snapshot|operated|fingerprint|cidr/;

async function bundle(entry, external) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    minify: true,
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    external,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.values(result.metafile.outputs);
  return {
    code: result.outputFiles[0].text,
    imports: outputs.flatMap((o) => o.imports),
    inputs: outputs.flatMap((o) =>
      Object.entries(o.inputs).flatMap(([path, input]) => (input.bytesInOutput > 0 ? [path] : [])),
    ),
  };
}

/** The Node built-ins `code` imports or requires (`node:` ones and bare names). */
function nodeBuiltinsIn(code) {
  const builtins = new Set(builtinModules);
  return [
    ...code.matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s*)["'`]([^"'`]+)["'`]/g,
    ),
  ]
    .map((m) => m[1])
    .filter((s) => s.startsWith('node:') || builtins.has(s));
}

async function main() {
  const dir = resolve(process.argv[2] ?? '.');
  const entry = join(dir, 'sluice-worker-size-app.mjs');
  writeFileSync(entry, APP);
  const problems = [];
  const whole = await bundle(entry, []);
  if (whole.imports.length > 0)
    problems.push(`imports left to resolve: ${JSON.stringify(whole.imports)}`);
  const builtins = nodeBuiltinsIn(whole.code);
  if (builtins.length > 0) problems.push(`Node built-ins in the bundle: ${builtins.join(', ')}`);
  const part = await bundle(entry, ['hono', 'hono/*']);
  const gzip = gzipSync(part.code).length;
  console.log(
    `worker-size: sluice's part of a Hono Worker, from the packed packages: ${part.code.length} B minified, ${gzip} B gzip (limit ${LIMIT_BYTES} B)`,
  );
  if (gzip > LIMIT_BYTES) problems.push(`${gzip} B gzip is over ${LIMIT_BYTES} B`);
  const unused = part.inputs.filter((p) => UNUSED.test(p));
  if (unused.length > 0) problems.push(`modules the app never reaches: ${unused.join(', ')}`);
  for (const p of problems) console.error(`worker-size: ${p}`);
  process.exit(problems.length === 0 ? 0 : 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
