/// <reference types="jest" />
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The package-exports check every published package runs: build the package,
 * and the workspace packages it depends on, with their own tsup configs (as `pnpm pack`
 * does) into a scratch `node_modules`, then
 * load it by name through the `exports` map of its package.json, once with `require()` and
 * once with `import()`, in a child process, and run one real decision through the built
 * code. The scratch directory keeps the check away from `packages/<name>/dist` (which
 * `pnpm build` and the other packages' checks must not race on) and from the workspace
 * links in `packages/<name>/node_modules/@sluice` (which point at dists absent on a fresh
 * clone). Declarations are built only when asked (`pnpm build` builds them all).
 */
export interface PackageExportsSpec {
  /** The folder under `packages/`: the package is `@sluice/<name>`. */
  name:
    | 'core'
    | 'redis'
    | 'express'
    | 'fastify'
    | 'koa'
    | 'client'
    | 'nestjs'
    | 'postgres'
    | 'sqlite'
    | 'fetch'
    | 'hono'
    | 'cloudflare'
    | 'ai';
  /** Build `.d.ts` / `.d.cts` as well and check that they are emitted (slower: ~8 s). */
  declarations?: boolean;
  /** Names the loaded package must export as functions (classes included). */
  functions: readonly string[];
  /**
   * The body of an async function run in the child process, returning a JSON-able object
   * that {@link PackageExportsSpec.check} receives. In scope: `load(name)` (`require` or
   * `import()`, by the format under test), `pkg` (the package under test, loaded) and
   * `format` (`'cjs'` or `'esm'`).
   */
  probe: string;
  /** Assertions on what the probe returned (the same for both formats). */
  check(result: Record<string, unknown>, format: 'cjs' | 'esm'): void;
  /** Extra environment for the probe's process, read when the probe runs (after beforeAll). */
  env?: () => Record<string, string>;
}

/** packages/ (this file is packages/test-kit/src/package-exports.ts). */
const packagesDir = (): string => join(__dirname, '..', '..');

interface Manifest {
  exports: Record<string, unknown>;
  main: string;
  module: string;
  types: string;
  dependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

function manifest(name: string): Manifest {
  return JSON.parse(readFileSync(join(packagesDir(), name, 'package.json'), 'utf8')) as Manifest;
}

/** The workspace packages `name` depends on at run time (`"@sluice/x": "workspace:*"`). */
function workspaceDependencies(name: string): string[] {
  return Object.entries(manifest(name).dependencies ?? {})
    .filter(([dep, range]) => dep.startsWith('@sluice/') && range.startsWith('workspace:'))
    .map(([dep]) => dep.slice('@sluice/'.length));
}

/** Every file the exports map, `main`, `module` and `types` point at (`./dist/index.js`…). */
function targets(pkg: Manifest): string[] {
  const files = new Set([pkg.main, pkg.module, pkg.types]);
  const walk = (value: unknown): void => {
    if (typeof value === 'string') files.add(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  for (const [subpath, value] of Object.entries(pkg.exports)) {
    if (subpath !== './package.json') walk(value);
  }
  return [...files];
}

/**
 * Builds `packages/<name>` with its own tsup.config.ts (what `pnpm pack` ships: the formats,
 * entries and layout of the published build) into `outDir`, with its declarations only
 * when asked.
 */
function build(name: string, outDir: string, declarations: boolean): void {
  const repoRoot = join(packagesDir(), '..');
  const tsupCli = require.resolve('tsup/dist/cli-default.js', { paths: [repoRoot] });
  const args = [tsupCli, '--out-dir', outDir];
  if (!declarations) args.push('--no-dts');
  execFileSync(process.execPath, args, { cwd: join(packagesDir(), name), stdio: 'pipe' });
}

/**
 * Links the third-party packages installed for `packages/<name>` (its dependencies, peers
 * and dev tools) into `scratch/node_modules`, leaving out `@sluice/*`: those are the scratch
 * builds. The first link of a name wins; the workspace installs one version of each.
 */
function linkThirdParty(name: string, modules: string): void {
  const installed = join(packagesDir(), name, 'node_modules');
  if (!existsSync(installed)) return;
  const link = (from: string, to: string) => {
    if (!existsSync(to)) symlinkSync(from, to, 'dir');
  };
  for (const entry of readdirSync(installed)) {
    if (entry === '@sluice' || entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      mkdirSync(join(modules, entry), { recursive: true });
      for (const scoped of readdirSync(join(installed, entry))) {
        link(join(installed, entry, scoped), join(modules, entry, scoped));
      }
    } else {
      link(join(installed, entry), join(modules, entry));
    }
  }
}

/** The child script for one format: loads the package, runs the probe, prints JSON. */
function script(spec: PackageExportsSpec, format: 'cjs' | 'esm'): string[] {
  const id = JSON.stringify(`@sluice/${spec.name}`);
  const body = `
const pkg = await load(${id});
const functions = {};
for (const name of ${JSON.stringify(spec.functions)}) functions[name] = typeof pkg[name];
const result = await (async () => {${spec.probe}})();
console.log(JSON.stringify({ resolved: resolve(${id}), functions, result }));
`;
  if (format === 'cjs') {
    const main = `const format = 'cjs';
const load = async (name) => require(name);
const resolve = (name) => require.resolve(name);
(async () => {${body}})().catch((e) => { console.error(e); process.exit(1); });`;
    return ['-e', main];
  }
  const main = `const format = 'esm';
const load = (name) => import(name);
const resolve = (name) => import.meta.resolve(name);
${body}`;
  return ['--input-type=module', '-e', main];
}

/** Registers the package-exports check of one package (jest `describe` / `it`). */
export function describePackageExports(spec: PackageExportsSpec): void {
  const { name } = spec;
  const declarations = spec.declarations === true;

  describe(`@sluice/${name} built package`, () => {
    let scratch: string;
    let built: string;

    beforeAll(() => {
      scratch = mkdtempSync(join(tmpdir(), `sluice-${name}-`));
      const modules = join(scratch, 'node_modules');
      for (const each of [...workspaceDependencies(name), name]) {
        const target = join(modules, '@sluice', each);
        mkdirSync(target, { recursive: true });
        cpSync(join(packagesDir(), each, 'package.json'), join(target, 'package.json'));
        build(each, join(target, 'dist'), declarations && each === name);
        linkThirdParty(each, modules);
      }
      built = join(modules, '@sluice', name);
    }, 180_000); // core builds its declarations twice (its ESM and CommonJS builds)

    afterAll(() => {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    it('`pnpm pack` builds first (a prepack script): a tarball is never packed without dist', () => {
      const scripts = manifest(name).scripts ?? {};
      expect(scripts.build).toBe('tsup');
      expect(scripts.prepack).toBe('pnpm run build');
    });

    it('the exports map points at dist/index.{js,cjs,d.ts,d.cts}', () => {
      const pkg = manifest(name);
      expect(pkg.exports['.']).toEqual({
        import: { types: './dist/index.d.ts', default: './dist/index.js' },
        require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
      });
      expect([pkg.main, pkg.module, pkg.types]).toEqual([
        './dist/index.cjs',
        './dist/index.js',
        './dist/index.d.ts',
      ]);
    });

    it(
      declarations
        ? 'emits every file the exports map points at'
        : 'emits the .js and .cjs files the exports map points at (declarations: pnpm build)',
      () => {
        const files = targets(manifest(name)).filter((f) => declarations || !/\.d\.c?ts$/.test(f));
        expect(files.length).toBeGreaterThan(0);
        for (const file of files) {
          expect([file, existsSync(join(built, file))]).toEqual([file, true]);
        }
      },
    );

    it.each(['cjs', 'esm'] as const)('loads and decides through the exports map (%s)', (format) => {
      const out = execFileSync(process.execPath, script(spec, format), {
        cwd: scratch,
        encoding: 'utf8',
        env: { ...process.env, ...spec.env?.() },
      });
      const { resolved, functions, result } = JSON.parse(out.trim()) as {
        resolved: string;
        functions: Record<string, string>;
        result: Record<string, unknown>;
      };
      const file = format === 'cjs' ? 'index\\.cjs' : 'index\\.js';
      expect(resolved.replace(/\\/g, '/')).toMatch(
        new RegExp(`/node_modules/@sluice/${name}/dist/${file}$`),
      );
      expect(functions).toEqual(Object.fromEntries(spec.functions.map((f) => [f, 'function'])));
      spec.check(result, format);
    });
  });
}
