// Exactness under contention: 4 separate OS processes, each firing 500
// concurrent consumes on one key whose limit is 100, admit exactly 100 in total, for every
// algorithm, on standalone Redis and on a 3-master Cluster, with the default server clock.
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import {
  type RedisCluster,
  type RedisProcess,
  startCluster,
  startRedis,
  tsWorkerPath,
} from '@sluice/test-kit';
import { type AlgorithmSpec, HUNDRED_PER_HOUR, specLabel } from './algorithm-specs.js';
import type { WorkerReport } from './contention-worker.js';

const PROCESSES = 4;
const CALLS_PER_PROCESS = 500;
const LIMIT = 100;

interface Worker {
  child: ChildProcess;
  /** Resolves with the next message of `type` from this worker. */
  next<T = unknown>(type: string): Promise<T>;
}

function startWorker(): Worker {
  const child = fork(tsWorkerPath(), [join(__dirname, 'contention-worker.ts')], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, (message: unknown) => void>();
  let failed: Error | undefined;
  const failAll = (error: Error) => {
    failed = error;
    for (const reject of rejecters) reject(error);
  };
  const rejecters = new Set<(error: Error) => void>();
  child.on('message', (message: { type: string; error?: string }) => {
    if (message.type === 'error') return failAll(new Error(`worker failed: ${message.error}`));
    const resolve = waiting.get(message.type);
    waiting.delete(message.type);
    resolve?.(message);
  });
  child.on('exit', (code, signal) => {
    failAll(new Error(`worker ${child.pid} exited (${code ?? signal})`));
  });
  return {
    child,
    next: <T>(type: string) =>
      new Promise<T>((resolve, reject) => {
        if (failed) return reject(failed);
        rejecters.add(reject);
        waiting.set(type, (message) => {
          rejecters.delete(reject);
          resolve(message as T);
        });
      }),
  };
}

let standalone: RedisProcess | undefined;
let cluster: RedisCluster | undefined;
let workers: Worker[] = [];

beforeAll(async () => {
  // Start the servers and the worker processes (each transpiles the sources) in parallel.
  workers = Array.from({ length: PROCESSES }, startWorker);
  [standalone, cluster] = await Promise.all([startRedis(), startCluster()]);
  const ready = workers.map((w) => w.next('ready'));
  for (const w of workers) {
    w.child.send({
      type: 'setup',
      standalonePort: standalone.port,
      clusterPorts: cluster.nodes.map((n) => n.port),
    });
  }
  await Promise.all(ready);
}, 60_000);

afterAll(async () => {
  for (const w of workers) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  }
  await Promise.all([standalone?.stop(), cluster?.stop()]);
}, 30_000);

let round = 0;

/** One race: every worker prepares, then all get 'go' together; returns their reports. */
async function race(target: 'standalone' | 'cluster', spec: AlgorithmSpec) {
  const key = `contend:${target}:${round++}:${Math.random().toString(36).slice(2)}`;
  const prepared = workers.map((w) => w.next('prepared'));
  for (const w of workers) {
    w.child.send({ type: 'prepare', target, spec, key, calls: CALLS_PER_PROCESS });
  }
  await Promise.all(prepared);
  const done = workers.map((w) => w.next<WorkerReport>('done'));
  for (const w of workers) w.child.send({ type: 'go' });
  return Promise.all(done);
}

const overlaps: number[] = [];
/** Admissions per process in each race (for debugging a failure). */
const shares: number[][] = [];

describe.each(['standalone', 'cluster'] as const)('%s Redis', (target) => {
  it.each(HUNDRED_PER_HOUR.map((spec) => ({ spec, label: specLabel(spec) })))(
    `${PROCESSES} processes x ${CALLS_PER_PROCESS} concurrent consumes admit exactly ${LIMIT}: $label`,
    async ({ spec }) => {
      const reports = await race(target, spec);
      const allowed = reports.reduce((sum, r) => sum + r.allowed, 0);
      const denied = reports.reduce((sum, r) => sum + r.denied, 0);
      // Every decision came from Redis (no timeout, no error, no fallback).
      expect(reports.flatMap((r) => r.failures)).toEqual([]);
      expect({ allowed, denied }).toEqual({
        allowed: LIMIT,
        denied: PROCESSES * CALLS_PER_PROCESS - LIMIT,
      });
      // How long all 4 processes were firing at the same time (ms).
      const overlap =
        Math.min(...reports.map((r) => r.endedAt)) - Math.max(...reports.map((r) => r.startedAt));
      overlaps.push(overlap);
      shares.push(reports.map((r) => r.allowed));
    },
    30_000,
  );
});

it('the processes really ran at the same time', () => {
  // In most races all 4 processes had calls in flight at one moment.
  expect(overlaps).toHaveLength(2 * HUNDRED_PER_HOUR.length);
  const concurrent = overlaps.filter((ms) => ms > 0).length;
  if (concurrent < Math.ceil(overlaps.length / 2)) {
    throw new Error(`the processes rarely overlapped: ${JSON.stringify({ overlaps, shares })}`);
  }
});
