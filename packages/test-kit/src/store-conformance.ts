// The store conformance suite, described once and run by every store's tests (Postgres,
// SQLite, Redis...): the redis-cell vectors; random traces of every algorithm and feature
// (consumes, peeks, refunds, debts, penalties, leases) decided exactly as MemoryStore
// decides them; several limits all-or-nothing under concurrency; and exactness across 4
// OS processes racing on one key.
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { type Decision, fixedWindow, MemoryStore, type Store, toCellReply } from '@sluice/core';
import { EPOCH } from './epoch.js';
import { HUNDRED_PER_HOUR, STORE_ALGORITHMS } from './store-algorithms.js';
import type { SoakReport } from './store-soak-worker.js';
import { randomTrace, runTrace, runTraceInRealTime } from './store-traces.js';
import type { StoreWorkerReport } from './store-worker.js';
import { replayVector, vectorRuns } from './vectors.js';

/** What a store's test gives the suite. */
export interface StoreHarness {
  /** The store's name, for test titles. */
  name: string;
  /** Starts what the store needs (a database...); before any other call. */
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A store deciding at the time each call gives (the limiter's clock). */
  clientClockStore(): Store;
  /**
   * The absolute path of a module that worker processes load: it exports
   * `createStore(): Promise<Store>` (a store of the same data, its default clock) and
   * `closeStore()`. Reads what it needs from the environment {@link StoreHarness.workerEnv}
   * gives. Without it, the cross-process race is not run.
   */
  workerModule?: string;
  workerEnv?(): Record<string, string>;
  /**
   * How many random traces run at once (default: all of them). A store whose keys expire in
   * real time while its decisions use the trace's clock (Redis with `clock: 'client'`) needs
   * few: a trace slowed past a key's TTL on a loaded machine would find it gone.
   */
  traceConcurrency?: number;
  /**
   * The store's keys expire in real time while the traces run on their own clock (a store
   * behind a slow transport: each op a round trip): run each trace on MemoryStore and the
   * store in lockstep, the clock never behind real time (`runTraceInRealTime`).
   */
  realTimeTraces?: boolean;
  /**
   * With `realTimeTraces`: how long (ms) the store's keys outlive their state (Redis:
   * `SLACK_MS`, 1000). A trace with an op slower than this (a stalled machine) proves nothing
   * and is run again on a fresh key, up to {@link TRACE_RERUNS} times. Default 1000.
   */
  realTimeSlackMs?: number;
  /**
   * The time base of the vectors and traces, ms since the Unix epoch (default {@link EPOCH}):
   * `FUTURE_EPOCH` (epoch.ts) for a store that sweeps states by its own real clock.
   */
  epoch?: number;
  /**
   * Operations per algorithm in the random traces (default {@link STORE_OPS}): fewer for a
   * store whose every op is an HTTP round trip, when the same Lua is traced in full elsewhere.
   */
  ops?: number;
}

/** Operations per algorithm in the differential traces (`SLUICE_STORE_OPS`, default 10 000). */
export const STORE_OPS = Number(process.env.SLUICE_STORE_OPS ?? 10_000);
/** Ops per trace: traces run side by side, each op after the previous one's answer. */
const TRACE_LENGTH = 40;
/** The cross-process race: 4 processes x 250 concurrent consumes, 10 rounds. */
const PROCESSES = 4;
const CALLS = 250;
const ROUNDS = Number(process.env.SLUICE_STORE_ROUNDS ?? 10);
/** The short soak of the test suite, in the race's processes (the 60 s one: `pnpm bench:stores-soak`). */
const SOAK_MS = Number(process.env.SLUICE_STORE_SOAK_MS ?? 3000);

/** The path of the tsx runner for worker processes (`fork(tsWorkerPath(), [worker])`). */
export function tsWorkerPath(): string {
  return join(__dirname, 'ts-worker.cjs');
}

export interface Worker {
  child: ChildProcess;
  next<T = unknown>(type: string): Promise<T>;
}

/**
 * Forks a worker (store-worker.ts by default); `next(type)` resolves with its next message
 * of `type`.
 */
export function startStoreWorker(
  env: Record<string, string> = {},
  worker = join(__dirname, 'store-worker.ts'),
): Worker {
  const child = fork(tsWorkerPath(), [worker], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  const waiting = new Map<string, (message: unknown) => void>();
  const rejecters = new Set<(error: Error) => void>();
  let failed: Error | undefined;
  const failAll = (error: Error) => {
    failed = error;
    for (const reject of rejecters) reject(error);
  };
  child.on('message', (message: { type: string; error?: string }) => {
    if (message.type === 'error') return failAll(new Error(`worker failed: ${message.error}`));
    const resolve = waiting.get(message.type);
    waiting.delete(message.type);
    resolve?.(message);
  });
  child.on('exit', (code, signal) => failAll(new Error(`worker exited (${code ?? signal})`)));
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

/** Runs `task(0)` … `task(count - 1)`, at most `width` at a time. */
async function runPool(
  count: number,
  width: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, lane));
}

/** Reruns of a real-time trace whose slowest op outlived the store's slack (a stalled machine). */
const TRACE_RERUNS = 3;

/**
 * A real-time trace, run again on a fresh key while one of its ops took longer than `slackMs`
 * (then the store may have expired a key in real time that the trace's clock still held):
 * at most {@link TRACE_RERUNS} reruns; a machine stalled on every one fails the test.
 */
async function inRealTime(
  slackMs: number,
  trace: (attempt: number) => Promise<[Decision[], Decision[], number]>,
): Promise<[Decision[], Decision[]]> {
  for (let attempt = 0; ; attempt++) {
    const [expected, actual, slowest] = await trace(attempt);
    if (slowest < slackMs) return [expected, actual];
    if (attempt === TRACE_RERUNS) {
      throw new Error(
        `a real-time trace had an op of ${Math.round(slowest)} ms (over the store's ${slackMs} ms slack) on ${TRACE_RERUNS + 1} runs: the machine is too loaded for it`,
      );
    }
  }
}

/** Runs the store conformance suite on the store of `harness`. */
export function describeStoreConformance(harness: StoreHarness): void {
  describe(`${harness.name}: store conformance`, () => {
    beforeAll(() => harness.setup(), 60_000);
    afterAll(() => harness.teardown(), 60_000);

    describe('redis-cell vectors', () => {
      it.each(vectorRuns().map((run) => ({ run, label: run.label })))('$label', async ({ run }) => {
        const replies = await replayVector(
          run,
          harness.clientClockStore(),
          `vec:${Math.random()}`,
          harness.epoch,
        );
        expect(replies).toEqual(run.steps.map((s) => s.cell));
      });
    });

    const ops = Math.min(harness.ops ?? STORE_OPS, STORE_OPS);
    describe(`${ops} random operations per algorithm decide as MemoryStore does`, () => {
      it.each(STORE_ALGORITHMS.map((a) => ({ a, name: a.name })))(
        '$name',
        async ({ a }) => {
          const algorithm = a.build();
          const memory = new MemoryStore({ maxKeys: 1_000_000 });
          const store = harness.clientClockStore();
          const traces = Math.ceil(ops / TRACE_LENGTH);
          const run = `diff:${Math.random().toString(36).slice(2)}:`;
          let allowed = 0;
          let denied = 0;
          await runPool(traces, harness.traceConcurrency ?? traces, async (t) => {
            const ops = randomTrace(algorithm, a.scale, TRACE_LENGTH, t + 1);
            // Any ms of a day, so aligned windows and calendar edges are hit at every phase.
            const start = (harness.epoch ?? EPOCH) + Math.floor(((t * 7919) % 1000) * 86_400);
            const [expected, actual] = harness.realTimeTraces
              ? await inRealTime(harness.realTimeSlackMs ?? 1000, (attempt) =>
                  runTraceInRealTime(
                    memory,
                    `k${t}.${attempt}`,
                    store,
                    `${run}${t}.${attempt}`,
                    algorithm,
                    start,
                    ops,
                  ),
                )
              : [
                  await runTrace(memory, `k${t}`, algorithm, start, ops),
                  await runTrace(store, `${run}${t}`, algorithm, start, ops),
                ];
            for (const [i, d] of expected.entries()) {
              if (d.allowed) allowed++;
              else denied++;
              if (JSON.stringify(actual[i]) !== JSON.stringify(d)) {
                expect({
                  trace: t,
                  op: i,
                  ops: ops.slice(0, i + 1),
                  decision: actual[i],
                }).toEqual({
                  trace: t,
                  op: i,
                  ops: ops.slice(0, i + 1),
                  decision: d,
                });
              }
            }
          });
          // The traces reach both outcomes (otherwise the comparison proves little).
          expect(allowed).toBeGreaterThan(ops / 10);
          expect(denied).toBeGreaterThan(ops / 20);
        },
        120_000,
      );
    });

    it('several limits are all-or-nothing under concurrency: [5/min, 100/day] admit 5, the day charged 5', async () => {
      const store = harness.clientClockStore();
      if (typeof store.consumeAll !== 'function') throw new Error('the store has no consumeAll');
      const minute = fixedWindow({ limit: 5, window: '1m' });
      const day = fixedWindow({ limit: 100, window: '1d' });
      const k = `aon:${Math.random().toString(36).slice(2)}`;
      const now = (harness.epoch ?? EPOCH) + 1000;
      const all = await Promise.all(
        Array.from({ length: 40 }, () =>
          store.consumeAll!(
            [
              { key: `${k}:m`, algorithm: minute, cost: 1 },
              { key: `${k}:d`, algorithm: day, cost: 1 },
            ],
            now,
          ),
        ),
      );
      expect(all.filter((ds) => ds.every((d) => d.allowed))).toHaveLength(5);
      // The 35 others charged nothing: the day limit lost exactly 5.
      const peek = await store.consume(`${k}:d`, day, 0, now);
      expect(peek.remaining).toBe(95);
    });

    const workerModule = harness.workerModule;
    (workerModule === undefined ? describe.skip : describe)(
      `${PROCESSES} processes x ${CALLS} concurrent consumes on one key, ${ROUNDS} rounds`,
      () => {
        let workers: Worker[] = [];
        const overlaps: number[] = [];
        /** Each round's [start, end] per process, ms from the shared start instant. */
        const spans: number[][][] = [];
        beforeAll(async () => {
          workers = Array.from({ length: PROCESSES }, () =>
            startStoreWorker(harness.workerEnv?.()),
          );
          const ready = workers.map((w) => w.next('ready'));
          for (const w of workers) w.child.send({ type: 'setup', module: workerModule });
          await Promise.all(ready);
        }, 120_000);
        afterAll(() => {
          for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
        });

        it.each(
          Array.from({ length: ROUNDS }, (_, round) => ({
            round: round + 1,
            algorithm: HUNDRED_PER_HOUR[round % HUNDRED_PER_HOUR.length]!.name,
          })),
        )(
          'round $round ($algorithm): admitted = 100',
          async ({ algorithm }) => {
            const key = `race:${Math.random().toString(36).slice(2)}`;
            const prepared = workers.map((w) => w.next('prepared'));
            for (const w of workers) {
              w.child.send({ type: 'prepare', algorithm, key, calls: CALLS });
            }
            await Promise.all(prepared);
            const done = workers.map((w) => w.next<StoreWorkerReport>('done'));
            // Every process starts at the same instant (each waits for it).
            const startAt = Date.now() + 250;
            for (const w of workers) w.child.send({ type: 'go', startAt });
            const reports = await Promise.all(done);
            expect(reports.flatMap((r) => r.failures)).toEqual([]);
            const allowed = reports.reduce((sum, r) => sum + r.allowed, 0);
            expect(allowed).toBe(100);
            // The processes really raced: their firing overlapped.
            const overlap =
              Math.min(...reports.map((r) => r.endedAt)) -
              Math.max(...reports.map((r) => r.startedAt));
            overlaps.push(overlap);
            spans.push(reports.map((r) => [r.startedAt - startAt, r.endedAt - startAt]));
          },
          60_000,
        );

        it(`soak, ${SOAK_MS} ms: random stacks over 1000 keys from every process: no deadlock, no busy error, no error reaches a caller`, async () => {
          const done = workers.map((w) => w.next<SoakReport>('soaked'));
          for (const [i, w] of workers.entries()) {
            w.child.send({ type: 'soak', ms: SOAK_MS, keys: 1000, inflight: 8, seed: i + 1 });
          }
          const reports = await Promise.all(done);
          const sum = (f: (r: SoakReport) => number) => reports.reduce((n, r) => n + f(r), 0);
          expect({
            deadlocks: sum((r) => r.deadlocks),
            busy: sum((r) => r.busy),
            errors: reports.map((r) => r.errors),
          }).toEqual({ deadlocks: 0, busy: 0, errors: reports.map(() => ({})) });
          // Stacks were decided.
          expect(sum((r) => r.decisions)).toBeGreaterThan(PROCESSES * 50);
          expect(sum((r) => r.allowed)).toBeGreaterThan(0);
        }, 120_000);

        it('the processes really raced: their firing overlapped', () => {
          expect(overlaps).toHaveLength(ROUNDS);
          if (!overlaps.some((ms) => ms > 0)) {
            throw new Error(`the processes never overlapped: ${JSON.stringify(spans)}`);
          }
        });
      },
    );
  });
}

/** {@link toCellReply}, re-exported for stores' own vector checks. */
export { toCellReply };
