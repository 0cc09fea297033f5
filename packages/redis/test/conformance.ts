// The Redis conformance suite: one set of checks, run on every client RedisStore takes
// (clients.ts) on one topology per test file (conformance-<topology>.test.ts). Each cell
// (client x topology) checks: the redis-cell vectors; every algorithm exact across 4 OS
// processes; several limits all-or-nothing under concurrency; a stall: calls answered by
// the policy charge nothing when Redis wakes, one log line when the store starts failing and
// one when it answers again; on Sentinel, keys exhausted before the master is killed stay
// denied after its replica is promoted. The slow items (4 processes, stall, failover) run
// once per cell, with small counts.
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { fixedWindow, gcra, RateLimiter, slidingLog, slidingWindow } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import {
  EPOCH,
  type RedisCluster,
  type RedisProcess,
  type RedisSentinel,
  replayVector,
  startCluster,
  startRedis,
  startSentinel,
  tsWorkerPath,
  vectorRuns,
} from '@sluice/test-kit';
import { RedisStore } from '../src/index.js';
import { keySlot } from '../src/redis-key.js';
import { HUNDRED_PER_HOUR } from './algorithm-specs.js';
import {
  CLIENT_KINDS,
  type ClientKind,
  connect,
  type Endpoints,
  type TestClient,
  type Topology,
} from './clients.js';
import type { ConformanceReport } from './conformance-worker.js';

const PROCESSES = 4;
/** Concurrent consumes per process and algorithm: 4 x 60 = 240 race for 100. */
const CALLS_PER_PROCESS = 60;
const LIMIT = 100;

interface Worker {
  child: ChildProcess;
  next<T = unknown>(type: string): Promise<T>;
}

function startWorker(): Worker {
  const child = fork(tsWorkerPath(), [join(__dirname, 'conformance-worker.ts')], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
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

/** The servers of one topology. */
interface Servers {
  endpoints: Endpoints;
  /** Stops (SIGSTOP) every server a key of the store can be on; the result resumes them. */
  stall(): () => void;
  stop(): Promise<void>;
  sentinel?: RedisSentinel;
}

async function startServers(topology: Topology): Promise<Servers> {
  const pauseAll = (nodes: RedisProcess[]) => () => {
    for (const n of nodes) n.pause();
    return () => {
      for (const n of nodes) n.resume();
    };
  };
  if (topology === 'standalone') {
    const server = await startRedis();
    return {
      endpoints: { topology, port: server.port },
      stall: pauseAll([server]),
      stop: () => server.stop(),
    };
  }
  if (topology === 'cluster') {
    const cluster: RedisCluster = await startCluster();
    return {
      endpoints: { topology, ports: cluster.nodes.map((n) => n.port) },
      stall: pauseAll(cluster.nodes),
      stop: () => cluster.stop(),
    };
  }
  const sentinel = await startSentinel();
  return {
    endpoints: { topology, name: sentinel.name, sentinelPorts: sentinel.sentinelPorts },
    // Shorter than the sentinels' down-after time: a stall, not a failover.
    stall: pauseAll([sentinel.master]),
    stop: () => sentinel.stop(),
    sentinel,
  };
}

const unique = () => Math.random().toString(36).slice(2, 10);

/** The suite for one topology: a describe per client, each a cell of the matrix. */
export function conformanceSuite(topology: Topology): void {
  let servers: Servers;
  let workers: Worker[] = [];

  beforeAll(async () => {
    // The worker processes transpile the sources while the servers start.
    workers = Array.from({ length: PROCESSES }, startWorker);
    servers = await startServers(topology);
    const up = workers.map((w) => w.next('pong'));
    for (const w of workers) w.child.send({ type: 'ping' });
    await Promise.all(up);
  }, 180_000);

  afterAll(async () => {
    for (const w of workers) {
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    }
    await servers?.stop();
  }, 30_000);

  describe.each(CLIENT_KINDS)(`%s on ${topology}`, (kind: ClientKind) => {
    let connected: TestClient;
    beforeAll(async () => {
      connected = await connect(kind, servers.endpoints);
    }, 30_000);
    afterAll(() => connected?.close());

    it.each(vectorRuns().map((run) => ({ run, label: run.label })))(
      'redis-cell vector: $label',
      async ({ run }) => {
        // A long timeout: a slow answer on a loaded machine must not become a fallback decision.
        const store = new RedisStore({
          client: connected.client,
          clock: 'client',
          timeoutMs: 10_000,
        });
        const replies = await replayVector(run, store, `v:${unique()}:`);
        expect(replies).toEqual(run.steps.map((s) => s.cell));
      },
    );

    it(`every algorithm exact across ${PROCESSES} processes: ${PROCESSES} x ${CALLS_PER_PROCESS} concurrent consumes admit ${LIMIT}`, async () => {
      const ready = workers.map((w) => w.next('ready'));
      for (const w of workers) w.child.send({ type: 'setup', kind, endpoints: servers.endpoints });
      await Promise.all(ready);
      const key = `race:${unique()}`;
      const prepared = workers.map((w) => w.next('prepared'));
      for (const w of workers) {
        w.child.send({ type: 'prepare', key, specs: HUNDRED_PER_HOUR, calls: CALLS_PER_PROCESS });
      }
      await Promise.all(prepared);
      const done = workers.map((w) => w.next<ConformanceReport>('done'));
      for (const w of workers) w.child.send({ type: 'go' });
      const reports = await Promise.all(done);
      expect(reports.flatMap((r) => r.failures)).toEqual([]);
      const admitted = HUNDRED_PER_HOUR.map((_, i) =>
        reports.reduce((sum, r) => sum + r.allowed[i]!, 0),
      );
      expect(admitted).toEqual(HUNDRED_PER_HOUR.map(() => LIMIT));
    }, 60_000);

    it('several limits are all-or-nothing under concurrency: 30 requests on [5/min, 100/day] admit 5 and charge the day 5', async () => {
      const store = new RedisStore({ client: connected.client, timeoutMs: 10_000 });
      const kinds: [Algorithm, Algorithm][] = [
        [gcra({ rate: 5, period: '1m', burst: 5 }), gcra({ rate: 100, period: '1d', burst: 100 })],
        [fixedWindow({ limit: 5, window: '1m' }), fixedWindow({ limit: 100, window: '1d' })],
        [slidingWindow({ limit: 5, window: '1m' }), slidingWindow({ limit: 100, window: '1d' })],
        [slidingLog({ limit: 5, window: '1m' }), slidingLog({ limit: 100, window: '1d' })],
      ];
      for (const [minute, day] of kinds) {
        const id = unique();
        const request = (cost: number) => [
          { key: `aon:${id}:min`, algorithm: minute, cost },
          { key: `aon:${id}:day`, algorithm: day, cost },
        ];
        if (topology === 'cluster') {
          // Across slots: charge per slot, then give back what a denied request took.
          expect(keySlot(store.keyFor(`aon:${id}:min`))).not.toBe(
            keySlot(store.keyFor(`aon:${id}:day`)),
          );
        }
        const results = await Promise.all(
          Array.from({ length: 30 }, () => store.consumeAll(request(1), EPOCH)),
        );
        const admitted = results.filter((ds) => ds.every((d) => d.allowed)).length;
        const [, dayPeek] = await store.consumeAll(request(0), EPOCH);
        expect({ kind: minute.kind, admitted, dayRemaining: dayPeek!.remaining }).toEqual({
          kind: minute.kind,
          admitted: 5,
          dayRemaining: 95,
        });
      }
    }, 30_000);

    it('a stall: calls answered by the policy charge nothing when Redis wakes; one log line when failing, one when answering again', async () => {
      const messages: string[] = [];
      const limiter = new RateLimiter({
        algorithm: gcra({ rate: 10, period: '1h', burst: 10 }),
        store: new RedisStore({ client: connected.client, timeoutMs: 150 }),
        onStoreError: 'deny',
        logger: { warn: (m: string) => void messages.push(m) },
        breaker: { cooldownMs: 50 },
      });
      const key = `late:${unique()}`;
      // A reply from the key's server first: the store knows its clock, so the calls below
      // carry a deadline on it.
      expect((await limiter.peek(key)).remaining).toBe(10);
      const resume = servers.stall();
      let decisions: { allowed: boolean }[];
      try {
        decisions = await Promise.all(Array.from({ length: 10 }, () => limiter.consume(key)));
      } finally {
        resume();
      }
      expect(decisions.every((d) => !d.allowed)).toBe(true);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(/store failing/);
      // The stalled calls reach Redis now, past their deadline: they must charge nothing.
      // The breaker lets a probe through after its cooldown; Redis answers again.
      const deadline = Date.now() + 10_000;
      let peek = await limiter.peek(key);
      while (messages.length < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 60));
        peek = await limiter.peek(key);
      }
      expect(messages).toHaveLength(2);
      expect(messages[1]).toMatch(/answering again/);
      // Read from Redis (the breaker closed again): the 10 units are all there.
      expect(peek.remaining).toBe(10);
    }, 30_000);
  });

  if (topology === 'sentinel') {
    describe('a failover: the master killed, its replica promoted', () => {
      const algorithm = gcra({ rate: 3, period: '1h', burst: 3 });
      const cells: {
        kind: ClientKind;
        connected: TestClient;
        limiter: RateLimiter;
        key: string;
      }[] = [];
      beforeAll(async () => {
        for (const kind of CLIENT_KINDS) {
          const connected = await connect(kind, servers.endpoints);
          const limiter = new RateLimiter({
            algorithm,
            store: new RedisStore({ client: connected.client, timeoutMs: 500 }),
            onStoreError: 'insurance',
            logger: { warn: () => undefined },
            breaker: { cooldownMs: 100 },
          });
          const key = `exhausted:${unique()}`;
          for (let i = 0; i < 3; i++) expect((await limiter.consume(key)).allowed).toBe(true);
          expect((await limiter.consume(key)).allowed).toBe(false);
          cells.push({ kind, connected, limiter, key });
        }
        await servers.sentinel!.sync();
        await servers.sentinel!.failover();
      }, 90_000);
      afterAll(async () => {
        for (const c of cells) await c.connected.close();
      });

      it.each(CLIENT_KINDS)(
        '%s: exhausted keys stay denied through the failover; new keys are decided on the promoted master',
        async (kind) => {
          const cell = cells.find((c) => c.kind === kind)!;
          // The same limiter, while its client finds the new master: denied throughout.
          expect((await cell.limiter.consume(cell.key)).allowed).toBe(false);
          // Once the client reaches the promoted master, a store with nothing in process
          // (no over-limit cache, no insurance) reads the exhausted key from Redis.
          const strict = new RateLimiter({
            algorithm,
            store: new RedisStore({ client: cell.connected.client, timeoutMs: 2000 }),
            onStoreError: 'deny',
            logger: { warn: () => undefined },
          });
          const deadline = Date.now() + 20_000;
          let fresh = await strict.consume(`new:${unique()}`);
          while (!fresh.allowed && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 200));
            fresh = await strict.consume(`new:${unique()}`);
          }
          expect(fresh.allowed).toBe(true);
          const exhausted = await strict.consume(cell.key);
          expect({ allowed: exhausted.allowed, remaining: exhausted.remaining }).toEqual({
            allowed: false,
            remaining: 0,
          });
          expect((await cell.limiter.consume(cell.key)).allowed).toBe(false);
        },
        30_000,
      );
    });
  }
}
