// A worker process of prefetch-processes.test.ts (run through ts-worker.cjs). Protocol over IPC:
//   parent -> { type: 'setup', port, units, limit }   worker -> { type: 'ready' }
//   parent -> { type: 'go', key, calls }              worker -> { type: 'done', allowed, held, failures }
//   parent -> { type: 'close' }                       worker -> { type: 'closed' }
// On 'go' the worker fires all `calls` consumes at once on `key` through a RedisStore with
// prefetch (ttl of an hour: nothing goes back before 'close') and reports how many were
// admitted and how many units it still holds.
import { fixedWindow, RateLimiter } from '@sluice/core';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

type Message =
  | { type: 'setup'; port: number; units: number; limit: number }
  | { type: 'go'; key: string; calls: number }
  | { type: 'close' };

export interface PrefetchReport {
  type: 'done';
  allowed: number;
  held: number;
  failures: string[];
  /** How long the requests took, first call to last answer (ms). */
  ms: number;
}

let state:
  | { client: Redis; store: RedisStore; limiter: RateLimiter; failures: string[] }
  | undefined;

function send(message: object): void {
  process.send!(message);
}

async function handle(message: Message): Promise<void> {
  switch (message.type) {
    case 'setup': {
      const client = new Redis({ host: '127.0.0.1', port: message.port });
      const store = new RedisStore({
        client,
        timeoutMs: 20_000,
        prefetch: { units: message.units, ttl: '1h' },
      });
      const failures: string[] = [];
      const limiter = new RateLimiter({
        algorithm: fixedWindow({ limit: message.limit, window: '1h' }),
        store,
        onStoreError: 'deny',
        logger: { warn: (m) => void failures.push(m) },
      });
      await limiter.consume('warm'); // connection up, script loaded
      state = { client, store, limiter, failures };
      send({ type: 'ready' });
      return;
    }
    case 'go': {
      const { limiter, store, failures } = state!;
      const started = performance.now();
      const pending = [];
      for (let i = 0; i < message.calls; i++) pending.push(limiter.consume(message.key));
      const decisions = await Promise.all(pending);
      const report: PrefetchReport = {
        type: 'done',
        allowed: decisions.filter((d) => d.allowed).length,
        // The store key of a fixed window: the prefix marked `@fw`.
        held: store.prefetcher!.held(`sl@fw:${message.key}`),
        failures,
        ms: performance.now() - started,
      };
      send(report);
      return;
    }
    case 'close': {
      await state!.store.close();
      state!.client.disconnect();
      send({ type: 'closed' });
      return;
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
