import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { bundleForWorker, nodeBuiltinsIn, workspaceAliases } from '@sluice/test-kit';

describe('@sluice/cloudflare bundled for a Worker', () => {
  it('has no node: specifier and no bare Node built-in (runs without nodejs_compat)', async () => {
    const { code, imports } = await bundleForWorker(join(__dirname, '..', 'src', 'index.ts'), {
      alias: workspaceAliases(),
    });
    expect(imports).toEqual([]);
    expect(code).not.toMatch(/["'`]node:/);
    expect(nodeBuiltinsIn(code)).toEqual([]);
    console.log(
      `@sluice/cloudflare with core: ${code.length} B minified, ${gzipSync(code).length} B gzip`,
    );
  }, 60_000);
});
