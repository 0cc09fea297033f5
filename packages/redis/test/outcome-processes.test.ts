// Outcome-aware counting, penalties and concurrency leases across processes: 4 OS processes on one Redis (server clock), each
// firing its calls at once, count exactly: give-backs of successful logins leave the
// quota whole, 5 failed logins are admitted in all; a block is shared by every process;
// concurrent(2) admits exactly 2 leases in all, again once they are released; the leases
// of a killed process expire after leaseMs.
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { type RedisProcess, startRedis, tsWorkerPath } from '@sluice/test-kit';
import type { Step, StepResult } from './outcome-worker.js';

const PROCESSES = 4;

interface Worker {
  child: ChildProcess;
  next<T>(type: string): Promise<T>;
}

function startWorker(): Worker {
  const child = fork(tsWorkerPath(), [join(__dirname, 'outcome-worker.ts')], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting: { type: string; resolve: (m: unknown) => void; reject: (e: Error) => void }[] = [];
  child.on('message', (message: { type: string; error?: string }) => {
    if (message.type === 'error') {
      for (const w of waiting.splice(0)) w.reject(new Error(message.error));
      return;
    }
    const i = waiting.findIndex((w) => w.type === message.type);
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(message);
  });
  return {
    child,
    next: <T>(type: string) =>
      new Promise<T>((resolve, reject) => {
        waiting.push({ type, resolve: resolve as (m: unknown) => void, reject });
      }),
  };
}

let server: RedisProcess | undefined;
let workers: Worker[] = [];

beforeAll(async () => {
  workers = Array.from({ length: PROCESSES }, startWorker);
  server = await startRedis();
  const ready = workers.map((w) => w.next('ready'));
  for (const w of workers) w.child.send({ type: 'setup', port: server.port });
  await Promise.all(ready);
}, 60_000);

afterAll(async () => {
  for (const w of workers) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  }
  await server?.stop();
}, 30_000);

/** Every (live) worker runs `step` with `n` calls at once on `key`; their results. */
async function all(step: Step, key: string, n: number, on = workers): Promise<StepResult[]> {
  const results = on.map((w) => w.next<StepResult>('result'));
  for (const w of on) w.child.send({ type: 'run', step, key, n });
  const out = await Promise.all(results);
  expect(out.flatMap((r) => r.failures)).toEqual([]);
  return out;
}

const sum = (rs: StepResult[]) => rs.reduce((n, r) => n + r.allowed, 0);

describe(`${PROCESSES} processes on one Redis`, () => {
  it('successful logins given back never count; exactly 5 failed logins are admitted in all', async () => {
    expect(sum(await all('succeed', 'login:a', 25))).toBeGreaterThanOrEqual(5);
    expect(sum(await all('succeed', 'login:a', 25))).toBeGreaterThanOrEqual(5);
    const failed = await all('fail', 'login:a', 10);
    expect(sum(failed)).toBe(5);
  }, 30_000);

  it('a block is shared: 20 offences at once admit 5, every process then sees the block', async () => {
    const first = await all('offend', 'login:b', 5);
    expect(sum(first)).toBe(5);
    const retries = first.flatMap((r) => r.retries);
    expect(retries).toHaveLength(15);
    for (const s of retries) expect(s).toBeGreaterThanOrEqual(899);
    const later = await all('offend', 'login:b', 1);
    expect(sum(later)).toBe(0);
    for (const s of later.flatMap((r) => r.retries)) expect(s).toBeGreaterThanOrEqual(899);
  }, 30_000);

  it('concurrent(2): 4 x 5 leases at once admit exactly 2; after release, exactly 2 again', async () => {
    expect(sum(await all('lease', 'export:c', 5))).toBe(2);
    expect(sum(await all('lease', 'export:c', 5))).toBe(0);
    expect(sum(await all('release', 'export:c', 0))).toBe(2);
    expect(sum(await all('lease', 'export:c', 5))).toBe(2);
    await all('release', 'export:c', 0);
  }, 30_000);

  it('the leases of a killed process expire after leaseMs', async () => {
    const [victim, ...others] = workers;
    expect(sum(await all('short-lease', 'export:d', 2, [victim!]))).toBe(2);
    victim!.child.kill('SIGKILL');
    expect(sum(await all('short-lease', 'export:d', 2, others))).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(sum(await all('short-lease', 'export:d', 2, others))).toBe(2);
  }, 30_000);
});
