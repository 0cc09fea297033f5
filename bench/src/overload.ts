/**
 * `pnpm bench:overload`: a real overload run. A Fastify server pinned to one core
 * (`taskset -c 0` when present) whose handler burns 2 ms of CPU; autocannon on 127.0.0.1:
 *
 * 1. unloaded: 1 connection for `--phase` s → the unloaded p99;
 * 2. maximum: 32 connections for `--phase` s, no limiter → the maximum goodput (2xx/s);
 * 3. 2× that rate for `--seconds` s (default 60), first with no limiter, then behind
 *    `Limit.adaptive()`: p99 of the 2xx responses, their rate as a share of the maximum, and
 *    every 5xx counted by status (sluice's are 503).
 *
 * Targets: p99 ≤ 2× unloaded p99, every 5xx a 503, goodput ≥ 85% of the maximum. Prints one
 * JSON object; with `--write`, also to docs/data/overload-run.json. Self-contained: its own
 * server child (this file with `--server none|adaptive`), free port, stopped by pid.
 * Heavy: run it alone on a quiet machine (load average under 4).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Limit, rateLimit } from '@sluice/fastify';
import autocannon from 'autocannon';
import Fastify from 'fastify';

const CPU_MS = 2;
const here = fileURLToPath(import.meta.url);

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}

/** The server child: `GET /work` burns CPU_MS of CPU; behind Limit.adaptive() when asked. */
async function serve(mode: string): Promise<void> {
  const app = Fastify();
  if (mode === 'adaptive') await app.register(rateLimit, { limit: Limit.adaptive() });
  app.get('/work', async () => {
    const end = performance.now() + CPU_MS;
    while (performance.now() < end) {
      // burn
    }
    return { ok: true };
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  process.send?.(address);
}

async function startServer(mode: string): Promise<{ child: ChildProcess; url: string }> {
  const node = [process.execPath, '--import', 'tsx', here, '--server', mode];
  const argv = existsSync('/usr/bin/taskset') ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve(String(m)));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, url };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    process.kill(child.pid!, 'SIGTERM');
  });
}

interface Run {
  seconds: number;
  ok: number;
  okPerSecond: number;
  p99Ms: number;
  statuses: Record<string, number>;
}

/** Drives `url` with autocannon; the 2xx latencies are kept apart from the rest. */
async function load(
  url: string,
  opts: { connections: number; seconds: number; rate?: number },
): Promise<Run> {
  const okTimes: number[] = [];
  const statuses: Record<string, number> = {};
  // autocannon ships no types; bench/src/cases/untyped.d.ts declares only what bench:http uses.
  const instance = autocannon({
    url: `${url}/work`,
    connections: opts.connections,
    duration: opts.seconds,
    ...(opts.rate === undefined ? {} : { overallRate: opts.rate }),
  } as Parameters<typeof autocannon>[0]) as unknown as Promise<unknown> & {
    on(
      event: 'response',
      listener: (client: unknown, status: number, bytes: number, timeMs: number) => void,
    ): void;
  };
  instance.on('response', (_client: unknown, status: number, _bytes: number, time: number) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status < 300) okTimes.push(time);
  });
  await instance;
  okTimes.sort((a, b) => a - b);
  const p99 = okTimes[Math.max(0, Math.ceil(okTimes.length * 0.99) - 1)] ?? Number.NaN;
  return {
    seconds: opts.seconds,
    ok: okTimes.length,
    okPerSecond: okTimes.length / opts.seconds,
    p99Ms: p99,
    statuses,
  };
}

async function main(): Promise<void> {
  const phase = arg('phase', 10);
  const seconds = arg('seconds', 60);
  let server = await startServer('none');
  const unloaded = await load(server.url, { connections: 1, seconds: phase });
  const maximum = await load(server.url, { connections: 32, seconds: phase });
  const rate = Math.round(2 * maximum.okPerSecond);
  const overloaded: Record<string, Run> = {};
  for (const mode of ['none', 'adaptive']) {
    if (mode !== 'none') {
      await stop(server.child);
      server = await startServer(mode);
    }
    overloaded[mode] = await load(server.url, { connections: 256, seconds, rate });
  }
  await stop(server.child);
  const a = overloaded.adaptive!;
  const fivexx = Object.entries(a.statuses).filter(([s]) => Number(s) >= 500);
  const result = {
    date: new Date().toISOString(),
    config: { cpuMsPerRequest: CPU_MS, phaseSeconds: phase, seconds, offeredPerSecond: rate },
    unloaded,
    maximum,
    overloaded,
    checks: {
      p99WithinTwiceUnloaded: a.p99Ms <= 2 * unloaded.p99Ms,
      every5xxIs503: fivexx.every(([s]) => s === '503'),
      goodputShare: a.okPerSecond / maximum.okPerSecond,
    },
  };
  console.log(JSON.stringify(result, null, 2));
  if (process.argv.includes('--write')) {
    const out = path.resolve(path.dirname(here), '../../docs/data/overload-run.json');
    writeFileSync(out, `${JSON.stringify(result)}\n`);
  }
}

const serverAt = process.argv.indexOf('--server');
if (serverAt >= 0) await serve(process.argv[serverAt + 1]!);
else await main();
