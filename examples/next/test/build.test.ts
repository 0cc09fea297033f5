import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@sluice/test-kit';

// One `next build` of the example (CPU-heavy: .ci/run runs it once, on Node 20), then
// `next start`: the route handler limited by withRateLimit answers 5 requests and denies
// the 6th; the proxy's limit puts its draft-8 headers on every /api answer.
const app = join(__dirname, '..');
const root = join(app, '..', '..');
const next = join(app, 'node_modules', 'next', 'dist', 'bin', 'next');

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe('the Next.js example', () => {
  it('builds with next build, and withRateLimit limits its route handler and proxy.ts', async () => {
    // The example uses @sluice/fetch as an app would: its build (and @sluice/core's).
    for (const pkg of ['core', 'fetch']) {
      execFileSync('pnpm', ['exec', 'tsup'], { cwd: join(root, 'packages', pkg), stdio: 'pipe' });
    }
    execFileSync(process.execPath, [next, 'build'], {
      cwd: app,
      stdio: 'pipe',
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    });
    const port = await freePort();
    const server = spawn(process.execPath, [next, 'start', '-p', String(port), '-H', '127.0.0.1'], {
      cwd: app,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    });
    let out = '';
    server.stdout?.on('data', (d) => (out += d));
    server.stderr?.on('data', (d) => (out += d));
    try {
      const url = `http://127.0.0.1:${port}/api/hello`;
      const from = { 'x-forwarded-for': '203.0.113.7' };
      for (let i = 0; i < 100; i++) {
        if (/Ready|started server/i.test(out)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const statuses: number[] = [];
      let first: Response | undefined;
      let last: Response | undefined;
      for (let i = 0; i < 6; i++) {
        last = await fetch(url, { headers: from });
        first ??= last;
        statuses.push(last.status);
        if (i < 5) await last.text();
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      expect(first!.headers.get('x-ratelimit-limit')).toBe('5');
      expect(first!.headers.get('ratelimit-policy')).toContain('q=100');
      expect(last!.headers.get('retry-after')).not.toBeNull();
      expect(await last!.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
      // Another client has its own bucket.
      const other = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.8' } });
      expect(other.status).toBe(200);
      // Without X-Forwarded-For, `next start` writes the socket's address there itself: that
      // client is keyed by it, in a bucket of its own.
      expect((await fetch(url)).status).toBe(200);
    } finally {
      await stop(server);
    }
  }, 300_000);
});
