import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// Builds @sluice/express (and @sluice/core, which it requires) with tsup into a scratch
// node_modules, then loads @sluice/express by name through its exports map, once with
// require() and once with import(), and runs one real decision through the built
// middleware. The scratch directory keeps this test away from packages/core/dist, which
// core's own package-exports test rebuilds (with clean) at the same time. Declarations are
// not built here (`pnpm build` does): only the runtime formats are probed.

const packageDir = resolve(__dirname, '..');
const coreDir = resolve(packageDir, '../core');
const repoRoot = resolve(packageDir, '../..');

const probeScript = `
const sluice = LOAD;
const middleware = sluice.rateLimit({ limit: '1/min', store: new sluice.MemoryStore() });
const req = { method: 'GET', baseUrl: '', ip: '10.0.0.1', headers: {}, socket: {} };
const headers = {};
const res = { setHeader: (n, v) => { headers[n] = v; } };
let nextArgs;
middleware(req, res, (...args) => { nextArgs = args; });
console.log(JSON.stringify({
  resolved: RESOLVE,
  exports: {
    rateLimit: typeof sluice.rateLimit,
    throttle: typeof sluice.throttle,
    Throttle: typeof sluice.Throttle,
    SkipThrottle: typeof sluice.SkipThrottle,
    Limit: typeof sluice.Limit,
  },
  nextArgs,
  headers,
  rateLimit: req.rateLimit,
}));
`;

function build(dir: string, outDir: string): void {
  const tsupCli = require.resolve('tsup/dist/cli-default.js', { paths: [repoRoot] });
  execFileSync(
    process.execPath,
    [
      tsupCli,
      // The entries of each package's tsup.config.ts (core has the `./http` subpath too).
      '--entry.index',
      'src/index.ts',
      ...(existsSync(join(dir, 'src/http/index.ts'))
        ? ['--entry.http/index', 'src/http/index.ts']
        : []),
      '--splitting',
      '--no-config',
      '--format',
      'esm,cjs',
      '--target',
      'node20',
      '--out-dir',
      outDir,
    ],
    { cwd: dir, stdio: 'pipe' },
  );
}

describe('@sluice/express built package', () => {
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'sluice-express-'));
    for (const [name, dir] of [
      ['core', coreDir],
      ['express', packageDir],
    ] as const) {
      const target = join(scratch, 'node_modules', '@sluice', name);
      mkdirSync(target, { recursive: true });
      cpSync(join(dir, 'package.json'), join(target, 'package.json'));
      // Core's own dependencies (ms, ipaddr.js). Not express's: its one dependency is
      // @sluice/core, which must resolve to the scratch build above, not to the workspace
      // link in packages/express/node_modules (packages/core/dist, absent on a fresh clone).
      if (name === 'core') {
        symlinkSync(join(dir, 'node_modules'), join(target, 'node_modules'), 'dir');
      }
      build(dir, join(target, 'dist'));
    }
  }, 60_000);

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('the exports map points at dist/index.{js,cjs,d.ts,d.cts}', () => {
    const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
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

  it.each(['cjs', 'esm'] as const)('loads and decides through the exports map (%s)', (format) => {
    let args: string[];
    if (format === 'cjs') {
      const body = probeScript
        .replace('LOAD', "require('@sluice/express')")
        .replace('RESOLVE', "require.resolve('@sluice/express')");
      args = ['-e', body];
    } else {
      const body = probeScript
        .replace('LOAD', "await import('@sluice/express')")
        .replace('RESOLVE', "import.meta.resolve('@sluice/express')");
      args = ['--input-type=module', '-e', body];
    }
    const out = execFileSync(process.execPath, args, { cwd: scratch, encoding: 'utf8' });
    const result = JSON.parse(out.trim());
    const file = format === 'cjs' ? 'index.cjs' : 'index.js';
    expect(result.resolved.replace(/\\/g, '/')).toMatch(
      new RegExp(`/node_modules/@sluice/express/dist/${file.replace('.', '\\.')}$`),
    );
    expect(result.exports).toEqual({
      rateLimit: 'function',
      throttle: 'function',
      Throttle: 'function',
      SkipThrottle: 'function',
      Limit: 'function',
    });
    expect(result.nextArgs).toEqual([]);
    expect(result.headers['X-RateLimit-Limit']).toBe('1');
    expect(result.rateLimit).toMatchObject({ allowed: true, remaining: 0 });
  });
});
