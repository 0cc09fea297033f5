// Limit#costAfter across processes: 4 OS processes on one Redis (server clock) send
// requests at once on one key, each reserving 10 units on arrival and settling to its
// response's units (0..30: give-backs and charges past the reserve, concurrently): the total
// charged is exactly the sum of the responses' units.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fixedWindow } from '@sluice/core';
import { type RedisProcess, startRedis, tsWorkerPath } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

const PROCESSES = 4;

interface Result {
  type: 'result';
  units: number;
  admitted: number;
  failures: string[];
}

function startWorker() {
  const child = fork(tsWorkerPath(), [join(__dirname, 'cost-worker.ts')], {
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
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      waiting.push({ type, resolve: resolve as (m: unknown) => void, reject });
    });
  return { child, next };
}

let server: RedisProcess | undefined;
let workers: ReturnType<typeof startWorker>[] = [];

beforeAll(async () => {
  workers = Array.from({ length: PROCESSES }, startWorker);
  server = await startRedis();
  const ready = workers.map((w) => w.next('ready'));
  for (const w of workers) w.child.send({ type: 'setup', port: server.port });
  await Promise.all(ready);
}, 240_000);

afterAll(async () => {
  for (const w of workers) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  }
  await server?.stop();
}, 30_000);

describe(`costAfter: ${PROCESSES} processes on one Redis`, () => {
  it('the total charged equals the sum of the responses’ units, exactly', async () => {
    let expected = 0;
    for (let round = 0; round < 3; round++) {
      const results = workers.map((w) => w.next<Result>('result'));
      workers.forEach((w, i) => {
        w.child.send({ type: 'run', seed: round * PROCESSES + i + 1, n: 50 });
      });
      const out = await Promise.all(results);
      expect(out.flatMap((r) => r.failures)).toEqual([]);
      expect(out.map((r) => r.admitted)).toEqual(Array(PROCESSES).fill(50));
      expected += out.reduce((n, r) => n + r.units, 0);
    }
    const client = new Redis({ port: server!.port, host: '127.0.0.1' });
    try {
      const store = new RedisStore({ client });
      const peek = await store.consume(
        'sl@fw:tokens:tenant', // a fixed window's key: the prefix marked @fw
        fixedWindow({ limit: 1_000_000, window: '1h' }),
        0,
        Date.now(),
      );
      expect(expected).toBeGreaterThan(PROCESSES * 150 * 10); // more than the reserves alone
      expect(1_000_000 - peek.remaining).toBe(expected);
    } finally {
      client.disconnect();
    }
  }, 60_000);
});
