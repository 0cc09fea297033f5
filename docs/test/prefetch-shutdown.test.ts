// The prefetch page's app (docs/snippets/features/prefetch.ts), run as the page shows it,
// stopped by Ctrl-C (SIGINT) and by SIGTERM (`docker stop`, Kubernetes): each process gives
// back the units it held, so the next process sees every unused unit back. The quota is
// 1000 a day (API_LIMIT) so that a lost unit does not refill within the test (one unit per 86 s).
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort, type RedisProcess, startRedis } from '@sluice/test-kit';
import { DOCS, stop, TSX } from './paths.js';

jest.setTimeout(120_000);

let redis: RedisProcess;

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterAll(async () => {
  await redis?.stop();
});

interface App {
  child: ChildProcess;
  base: string;
  output: () => string;
}

async function startApp(): Promise<App> {
  const port = await freePort();
  const child = spawn(TSX, ['snippets/features/prefetch.ts'], {
    cwd: DOCS,
    env: {
      ...process.env,
      PORT: String(port),
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      API_LIMIT: 'throttle:1000,1440',
    },
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the app exited:\n${out}`);
    try {
      await fetch(`${base}/search`, { headers: { 'x-api-key': 'warm' } });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`the app did not listen in 60 s:\n${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return { child, base, output: () => out };
}

async function search(app: App): Promise<number> {
  const res = await fetch(`${app.base}/search`, { headers: { 'x-api-key': 'shutdown' } });
  expect(res.status).toBe(200);
  return Number(res.headers.get('x-ratelimit-remaining'));
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

test('stopped by SIGINT, then by SIGTERM: the next process sees every unused unit back', async () => {
  const apps: App[] = [];
  try {
    // 1st process: 3 requests; its first fetches 100 units of the quota and it holds 97.
    const first = await startApp();
    apps.push(first);
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) remaining.push(await search(first));
    expect(remaining[0]).toBe(999); // the fetch: Redis's remaining plus what it holds
    first.child.kill('SIGINT');
    expect(await exited(first.child)).toBe(0);

    // 2nd process: its first request fetches again; Redis has every unit back but the 3 used.
    const second = await startApp();
    apps.push(second);
    expect(await search(second)).toBe(1000 - 4);
    await search(second);
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);

    const third = await startApp();
    apps.push(third);
    expect(await search(third)).toBe(1000 - 6);
    third.child.kill('SIGTERM');
    expect(await exited(third.child)).toBe(0);
    expect(apps.map((a) => a.output()).join('')).not.toMatch(/PrefetchLostError|Error/);
  } finally {
    for (const app of apps) await stop(app.child);
  }
});
