// A worker process of contention.test.ts (run through ts-worker.cjs). Protocol over IPC:
//   parent -> { type: 'setup', standalonePort, clusterPorts }   worker -> { type: 'ready' }
//   parent -> { type: 'prepare', target, spec, key, calls }      worker -> { type: 'prepared' }
//   parent -> { type: 'go' }                                     worker -> { type: 'done', ... }
//   parent -> { type: 'exit' }
// On 'go' the worker fires all `calls` consumes at once on the shared key and reports how
// many were admitted, and how many were decided by anything but Redis (must be none).
import { RateLimiter } from '@sluice/core';
import { Cluster, Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';
import { type AlgorithmSpec, buildAlgorithm } from './algorithm-specs.js';

type Target = 'standalone' | 'cluster';

type Message =
  | { type: 'setup'; standalonePort: number; clusterPorts: number[] }
  | { type: 'prepare'; target: Target; spec: AlgorithmSpec; key: string; calls: number }
  | { type: 'go' }
  | { type: 'exit' };

export interface WorkerReport {
  type: 'done';
  allowed: number;
  denied: number;
  /** Store failures (timeouts, errors): each would be decided by the fallback policy. */
  failures: string[];
  /** Wall-clock span (ms since the epoch) from the first call to the last answer. */
  startedAt: number;
  endedAt: number;
}

const clients: Partial<Record<Target, Redis | Cluster>> = {};
let prepared: { limiter: RateLimiter; key: string; calls: number; failures: string[] } | undefined;

function send(message: object): void {
  process.send!(message);
}

const wallClock = () => performance.timeOrigin + performance.now();

async function handle(message: Message): Promise<void> {
  switch (message.type) {
    case 'setup': {
      clients.standalone = new Redis({ host: '127.0.0.1', port: message.standalonePort });
      clients.cluster = new Cluster(
        message.clusterPorts.map((port) => ({ host: '127.0.0.1', port })),
      );
      await clients.standalone.ping();
      await clients.cluster.ping();
      send({ type: 'ready' });
      return;
    }
    case 'prepare': {
      const client = clients[message.target]!;
      const algorithm = buildAlgorithm(message.spec);
      const failures: string[] = [];
      const limiter = new RateLimiter({
        algorithm,
        // Default server clock. A long timeout: under 2000 concurrent calls on 2 cores a slow
        // answer must not turn into a fallback decision, and any fallback is reported.
        store: new RedisStore({ client, timeoutMs: 20_000 }),
        onStoreError: 'deny',
        logger: { warn: (m) => void failures.push(m) },
      });
      // Warm up on the same slot (on a Cluster the same hash tag, another store prefix):
      // connection to the owning node and the script loaded there, so the race is decided
      // by Redis alone.
      const warm = new RateLimiter({
        algorithm,
        store: new RedisStore({ client, prefix: 'warm:', timeoutMs: 20_000 }),
        onStoreError: 'deny',
        logger: { warn: (m) => void failures.push(m) },
      });
      await warm.consume(message.key);
      prepared = { limiter, key: message.key, calls: message.calls, failures };
      send({ type: 'prepared' });
      return;
    }
    case 'go': {
      const { limiter, key, calls, failures } = prepared!;
      const startedAt = wallClock();
      const pending = [];
      for (let i = 0; i < calls; i++) pending.push(limiter.consume(key));
      const decisions = await Promise.all(pending);
      const endedAt = wallClock();
      const allowed = decisions.filter((d) => d.allowed).length;
      const report: WorkerReport = {
        type: 'done',
        allowed,
        denied: decisions.length - allowed,
        failures,
        startedAt,
        endedAt,
      };
      send(report);
      return;
    }
    case 'exit': {
      clients.standalone?.disconnect();
      clients.cluster?.disconnect();
      process.exit(0);
    }
  }
}

// Never outlive the test process.
process.on('disconnect', () => process.exit(1));

process.on('message', (message: Message) => {
  handle(message).catch((error: unknown) => {
    send({ type: 'error', error: error instanceof Error ? error.stack : String(error) });
  });
});
