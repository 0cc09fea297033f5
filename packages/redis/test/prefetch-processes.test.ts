// Prefetch across real processes: 4 OS processes with `prefetch` on one redis-server, firing
// 10,000 concurrent requests on one key, admit at most the quota, and once they close the
// bucket plus what they admitted is the quota; a process killed with SIGKILL while holding
// units loses at most `units` of the quota.
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { fixedWindow, RateLimiter } from '@sluice/core';
import { type RedisProcess, startRedis, tsWorkerPath } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';
import type { PrefetchReport } from './prefetch-worker.js';

const PROCESSES = 4;
const CALLS = 10_000;
const LIMIT = 1000;
const UNITS = 50;

interface Worker {
  child: ChildProcess;
  next<T = unknown>(type: string): Promise<T>;
}

function startWorker(): Worker {
  const child = fork(tsWorkerPath(), [join(__dirname, 'prefetch-worker.ts')], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, { resolve: (m: unknown) => void; reject: (e: Error) => void }>();
  let failed: Error | undefined;
  const failAll = (error: Error) => {
    failed = error;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  child.on('message', (message: { type: string; error?: string }) => {
    if (message.type === 'error') return failAll(new Error(`worker failed: ${message.error}`));
    const w = waiting.get(message.type);
    waiting.delete(message.type);
    w?.resolve(message);
  });
  child.on('exit', (code, signal) => failAll(new Error(`worker exited (${code ?? signal})`)));
  return {
    child,
    next: <T>(type: string) =>
      new Promise<T>((resolve, reject) => {
        if (failed) return reject(failed);
        waiting.set(type, { resolve: resolve as (m: unknown) => void, reject });
      }),
  };
}

let server: RedisProcess;
let client: Redis;
const workers: Worker[] = [];
const algorithm = fixedWindow({ limit: LIMIT, window: '1h' });

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ host: '127.0.0.1', port: server.port });
}, 30_000);

afterAll(async () => {
  for (const w of workers) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  }
  client?.disconnect();
  await server?.stop();
}, 30_000);

async function start(n: number): Promise<Worker[]> {
  const started = Array.from({ length: n }, startWorker);
  workers.push(...started);
  const ready = started.map((w) => w.next('ready'));
  for (const w of started)
    w.child.send({ type: 'setup', port: server.port, units: UNITS, limit: LIMIT });
  await Promise.all(ready);
  return started;
}

async function go(ws: Worker[], key: string, calls: number): Promise<PrefetchReport[]> {
  const done = ws.map((w) => w.next<PrefetchReport>('done'));
  for (const w of ws) w.child.send({ type: 'go', key, calls });
  return Promise.all(done);
}

async function close(ws: Worker[]): Promise<void> {
  const closed = ws.map((w) => w.next('closed'));
  for (const w of ws) w.child.send({ type: 'close' });
  await Promise.all(closed);
}

/** What the key has left in Redis, read without a prefetch. */
async function left(key: string): Promise<number> {
  const limiter = new RateLimiter({ algorithm, store: new RedisStore({ client }) });
  return (await limiter.peek(key)).remaining;
}

test(`${PROCESSES} processes, ${CALLS} concurrent requests on one key: at most the quota, nothing lost`, async () => {
  const ws = await start(PROCESSES);
  const key = 'prefetch:race';
  const reports = await go(ws, key, CALLS / PROCESSES);
  expect(reports.flatMap((r) => r.failures)).toEqual([]);
  const admitted = reports.reduce((sum, r) => sum + r.allowed, 0);
  const held = reports.reduce((sum, r) => sum + r.held, 0);
  expect(admitted).toBeLessThanOrEqual(LIMIT);
  // Charged in Redis: what was admitted plus what the processes still hold.
  expect(LIMIT - (await left(key))).toBe(admitted + held);
  await close(ws);
  expect((await left(key)) + admitted).toBe(LIMIT);
}, 120_000);

test('a process killed with SIGKILL while holding units loses at most `units`', async () => {
  const [victim] = await start(1);
  const key = 'prefetch:killed';
  const [first] = await go([victim!], key, 1);
  expect(first!.allowed).toBe(1);
  expect(first!.held).toBeGreaterThan(0);
  victim!.child.kill('SIGKILL');
  const survivors = await start(PROCESSES - 1);
  const reports = await go(survivors, key, 3000);
  expect(reports.flatMap((r) => r.failures)).toEqual([]);
  await close(survivors);
  const admitted = 1 + reports.reduce((sum, r) => sum + r.allowed, 0);
  const lost = LIMIT - (await left(key)) - admitted;
  expect(lost).toBe(first!.held);
  expect(lost).toBeLessThanOrEqual(UNITS);
}, 120_000);
