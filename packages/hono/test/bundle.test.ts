import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startWorkerd } from '@sluice/test-kit';
import { build } from 'esbuild';

const entry = join(__dirname, 'fixtures', 'worker-app.ts');
const packages = join(__dirname, '..', '..');

/** The app bundled as a user's Worker would be: esbuild, --platform=neutral, minified. */
async function bundle(external: string[] = []) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'neutral',
    format: 'esm',
    minify: true,
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    external,
    metafile: true,
    logLevel: 'silent',
    // The sources of the workspace packages (as jest maps them), not their dist.
    alias: {
      '@sluice/core/http': join(packages, 'core/src/http/index.ts'),
      '@sluice/core': join(packages, 'core/src/index.ts'),
      '@sluice/fetch': join(packages, 'fetch/src/index.ts'),
    },
  });
  const code = result.outputFiles[0]!.text;
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports);
  return { code, imports };
}

/** Module specifiers the code imports or requires (static, dynamic, CommonJS). */
function specifiers(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s*)["'`]([^"'`]+)["'`]/g,
  )) {
    found.push(m[1]!);
  }
  return found;
}

describe('a Hono app with @sluice/hono and the memory store, bundled for any runtime', () => {
  it('has no node: specifier and no bare Node built-in, and leaves nothing to resolve', async () => {
    const { code, imports } = await bundle();
    expect(imports).toEqual([]);
    expect(code).not.toMatch(/["'`]node:/);
    const builtins = new Set(builtinModules);
    expect(specifiers(code).filter((s) => s.startsWith('node:') || builtins.has(s))).toEqual([]);
  }, 60_000);

  // DESIGN §15 aims at 32 KB. The start-up checks, resolverTimeout, proxy trust, queue mode
  // and Limit.adaptive brought sluice's part to 36.6 KiB (37,468 B) (ipaddr.js alone is 12.4 KB
  // minified): this bound holds today's size against growth while the gap to 32 KB stays open.
  it("sluice's part (the bundle without Hono) is at most 37 KB gzip minified", async () => {
    const { code } = await bundle(['hono', 'hono/*']);
    const gzip = gzipSync(code).length;
    // The figure, for the docs and the report.
    console.log(`sluice's part: ${code.length} B minified, ${gzip} B gzip`);
    expect(gzip).toBeLessThanOrEqual(37 * 1024);
  }, 60_000);

  it('starts on workerd without nodejs_compat and limits per route (200, 200, 429)', async () => {
    const { code } = await bundle();
    const worker = await startWorkerd(code, { compatibilityFlags: [] });
    try {
      const from = { 'cf-connecting-ip': '203.0.113.9' };
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${worker.url}/users/${i}`, { headers: from });
        statuses.push(res.status);
        if (i === 0) {
          expect(res.headers.get('x-ratelimit-limit')).toBe('2');
          expect(await res.json()).toEqual({ id: '0', remaining: 1 });
        } else await res.arrayBuffer();
      }
      expect(statuses).toEqual([200, 200, 429]);
      // Another client (Cloudflare's CF-Connecting-IP) has its own bucket.
      const other = await fetch(`${worker.url}/users/9`, {
        headers: { 'cf-connecting-ip': '203.0.113.10' },
      });
      expect(other.status).toBe(200);
      // Without a client IP there is no shared bucket: a 500.
      const anonymous = await fetch(`${worker.url}/users/9`);
      expect(anonymous.status).toBe(500);
      expect(worker.output()).not.toMatch(/nodejs_compat|No such module/);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
