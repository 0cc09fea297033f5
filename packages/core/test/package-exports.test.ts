import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// Builds @sluice/core with tsup and loads the built package the way users will: by its
// name, through the `exports` map of package.json, once with require() and once with
// import(). Node resolves a package's own name from inside it (self-reference), so the
// child processes run with cwd = packages/core.

const packageDir = resolve(__dirname, '..');
const repoRoot = resolve(packageDir, '../..');

interface Probe {
  resolved: string;
  exports: Record<string, string>;
  first: { allowed: boolean; limit: number; remaining: number };
  second: { allowed: boolean; remaining: number };
  periodMs: number;
}

// The child script: resolve, load, check the exports, run real decisions. `LOAD` is
// replaced by require(...) or await import(...); `RESOLVE` by the matching resolver.
const probeScript = `
const core = LOAD;
const limiter = new core.RateLimiter({
  algorithm: core.gcra({ rate: 1, period: '1 minute', burst: 1 }),
  store: new core.MemoryStore({ maxKeys: 10 }),
});
const first = await limiter.consume('probe');
const second = await limiter.consume('probe');
console.log(JSON.stringify({
  resolved: RESOLVE,
  exports: {
    gcra: typeof core.gcra,
    RateLimiter: typeof core.RateLimiter,
    MemoryStore: typeof core.MemoryStore,
  },
  first,
  second,
  periodMs: core.parseDuration('period', '1 minute'),
}));
`;

function probe(format: 'cjs' | 'esm'): Probe {
  let args: string[];
  if (format === 'cjs') {
    const body = probeScript
      .replace('LOAD', "require('@sluice/core')")
      .replace('RESOLVE', "require.resolve('@sluice/core')");
    const main = `(async () => {${body}})().catch((e) => { console.error(e); process.exit(1); });`;
    args = ['-e', main];
  } else {
    const body = probeScript
      .replace('LOAD', "await import('@sluice/core')")
      .replace('RESOLVE', "import.meta.resolve('@sluice/core')");
    args = ['--input-type=module', '-e', body];
  }
  const out = execFileSync(process.execPath, args, { cwd: packageDir, encoding: 'utf8' });
  return JSON.parse(out.trim()) as Probe;
}

describe('@sluice/core built package', () => {
  beforeAll(() => {
    const tsupCli = require.resolve('tsup/dist/cli-default.js', { paths: [repoRoot] });
    execFileSync(process.execPath, [tsupCli], { cwd: packageDir, stdio: 'pipe' });
  }, 60_000);

  it('emits every file the exports map points at', () => {
    const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    const root = pkg.exports['.'];
    const targets = [
      root.import.types,
      root.import.default,
      root.require.types,
      root.require.default,
      pkg.main,
      pkg.module,
      pkg.types,
    ];
    expect(targets).toEqual([
      './dist/index.d.ts',
      './dist/index.js',
      './dist/index.d.cts',
      './dist/index.cjs',
      './dist/index.cjs',
      './dist/index.js',
      './dist/index.d.ts',
    ]);
    for (const target of targets) expect(existsSync(join(packageDir, target))).toBe(true);
  });

  it.each(['cjs', 'esm'] as const)('loads and decides through the exports map (%s)', (format) => {
    const result = probe(format);
    const file = format === 'cjs' ? 'index.cjs' : 'index.js';
    expect(result.resolved.replace(/\\/g, '/')).toMatch(new RegExp(`/dist/${file}$`));
    expect(result.exports).toEqual({
      gcra: 'function',
      RateLimiter: 'function',
      MemoryStore: 'function',
    });
    // lru-cache (MemoryStore) and ms (duration strings) resolved in this format.
    expect(result.periodMs).toBe(60_000);
    expect(result.first).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    expect(result.second).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('the ESM and CommonJS builds loaded in one process share the registry and the default stores', () => {
    // One ESM process imports the ESM build and requires the CommonJS one.
    const script = `
      import { createRequire } from 'node:module';
      const esm = await import('@sluice/core');
      const esmHttp = await import('@sluice/core/http');
      const require = createRequire(import.meta.url);
      const cjs = require('@sluice/core');
      const cjsHttp = require('@sluice/core/http');
      const app = {};
      esm.throttles.define('login', () => esm.Limit.perMinute(5));
      const limits = cjs.resolveLimitInput('throttle:login');
      console.log(JSON.stringify({
        twoBuilds: esm.RateLimiter !== cjs.RateLimiter,
        sameRegistry: esm.throttles === cjs.throttles,
        seenByCjs: cjs.throttles.has('login'),
        cjsNames: cjs.throttles.names,
        resolved: limits.limitsFor({ ip: '127.0.0.1' }).length,
        limitAcross: esm.Limit.perMinute(1) instanceof cjs.Limit,
        errorAcross: new cjs.SluiceConfigError('x', 1, 'y') instanceof esm.SluiceConfigError,
        sameProcessStore: esmHttp.defaultStoreOf(undefined) === cjsHttp.defaultStoreOf(undefined),
        sameAppStore: esmHttp.defaultStoreOf(app) === cjsHttp.defaultStoreOf(app),
        otherApp: esmHttp.defaultStoreOf({}) !== cjsHttp.defaultStoreOf(app),
      }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageDir,
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim())).toEqual({
      twoBuilds: true,
      sameRegistry: true,
      seenByCjs: true,
      cjsNames: ['login'],
      resolved: 1,
      limitAcross: true,
      errorAcross: true,
      sameProcessStore: true,
      sameAppStore: true,
      otherApp: true,
    });
  });
});
