// A worker process of the Redis conformance suite (run through ts-worker.cjs): one of the
// processes that race on shared keys. Protocol over IPC:
//   parent -> { type: 'setup', kind, endpoints }            worker -> { type: 'ready' }
//   parent -> { type: 'prepare', key, specs, calls }        worker -> { type: 'prepared' }
//   parent -> { type: 'go' }                                worker -> { type: 'done', ... }
//   parent -> { type: 'ping' }                               worker -> { type: 'pong' }
//   parent -> { type: 'exit' }
// On 'go' the worker fires `calls` consumes at once on the key of every spec (one key per
// algorithm, all at the same time) and reports how many each admitted, and every decision
// made by anything but Redis (must be none).
import { RateLimiter } from '@sluice/core';
import { RedisStore } from '../src/index.js';
import { type AlgorithmSpec, buildAlgorithm } from './algorithm-specs.js';
import { type ClientKind, connect, type Endpoints, type TestClient } from './clients.js';

type Message =
  | { type: 'setup'; kind: ClientKind; endpoints: Endpoints }
  | { type: 'prepare'; key: string; specs: AlgorithmSpec[]; calls: number }
  | { type: 'go' }
  | { type: 'ping' }
  | { type: 'exit' };

export interface ConformanceReport {
  type: 'done';
  /** Admitted calls per spec, in the order of the specs. */
  allowed: number[];
  /** Store failures (timeouts, errors): each would be decided by the fallback policy. */
  failures: string[];
}

let connected: TestClient | undefined;
let prepared:
  | { limiters: RateLimiter[]; key: string; calls: number; failures: string[] }
  | undefined;

function send(message: object): void {
  process.send!(message);
}

async function handle(message: Message): Promise<void> {
  switch (message.type) {
    case 'ping': {
      send({ type: 'pong' });
      return;
    }
    case 'setup': {
      await connected?.close();
      connected = await connect(message.kind, message.endpoints);
      send({ type: 'ready' });
      return;
    }
    case 'prepare': {
      const client = connected!.client;
      const failures: string[] = [];
      const logger = { warn: (m: string) => void failures.push(m) };
      // A long timeout: under thousands of concurrent calls on 2 cores a slow answer must
      // not turn into a fallback decision, and any fallback is reported.
      const store = new RedisStore({ client, timeoutMs: 20_000 });
      const limiters = message.specs.map(
        (spec, i) =>
          new RateLimiter({
            algorithm: buildAlgorithm(spec),
            store,
            prefix: `p${i}`,
            onStoreError: 'deny',
            logger,
          }),
      );
      // Warm up: connections to every node and the scripts loaded, so the race is decided
      // by Redis alone.
      await Promise.all(limiters.map((l) => l.consume(`warm:${message.key}`)));
      prepared = { limiters, key: message.key, calls: message.calls, failures };
      send({ type: 'prepared' });
      return;
    }
    case 'go': {
      const { limiters, key, calls, failures } = prepared!;
      const pending = limiters.map((limiter) =>
        Promise.all(Array.from({ length: calls }, () => limiter.consume(key))),
      );
      const decisions = await Promise.all(pending);
      const report: ConformanceReport = {
        type: 'done',
        allowed: decisions.map((ds) => ds.filter((d) => d.allowed).length),
        failures,
      };
      send(report);
      return;
    }
    case 'exit': {
      await connected?.close();
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
