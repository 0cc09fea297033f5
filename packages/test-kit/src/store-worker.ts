// A worker process of the store conformance suite (store-conformance.ts), run through
// ts-worker.cjs. Protocol over IPC:
//   parent -> { type: 'setup', module }          worker -> { type: 'ready' }
//   parent -> { type: 'prepare', algorithm, key, calls, consumeAll? } -> { type: 'prepared' }
//   parent -> { type: 'go', startAt }            worker -> { type: 'done', allowed, failures, ... }
//   parent -> { type: 'soak', ms, keys, inflight, seed }  worker -> { type: 'soaked', ...SoakReport }
// `module` exports `createStore(): Promise<Store>` and `closeStore(): Promise<void>`. On
// 'go' the worker fires all `calls` consumes at once on the shared key and reports how many
// were admitted, and every decision made by anything but the store (must be none).
import { type Decision, RateLimiter, type Store } from '@sluice/core';
import { loadWorkerModule } from './load-module.js';
import { storeAlgorithm } from './store-algorithms.js';
import { soak } from './store-soak-worker.js';

interface StoreModule {
  createStore(): Promise<Store>;
  closeStore(): Promise<void>;
  /** The store the soak runs on, when not the races' one (other settings for saturation). */
  soakStore?(): Promise<Store>;
}

type Message =
  | { type: 'setup'; module: string }
  | { type: 'prepare'; algorithm: string; key: string; calls: number }
  | { type: 'go'; startAt: number }
  | { type: 'soak'; ms: number; keys: number; inflight: number; seed: number }
  | { type: 'exit' };

/** What a worker reports after a race. */
export interface StoreWorkerReport {
  type: 'done';
  allowed: number;
  denied: number;
  failures: string[];
  startedAt: number;
  endedAt: number;
}

let factory: StoreModule | undefined;
let store: Store | undefined;
let prepared: { limiter: RateLimiter; key: string; calls: number; failures: string[] } | undefined;

const send = (message: object) => process.send!(message);
const wallClock = () => performance.timeOrigin + performance.now();

async function handle(message: Message): Promise<void> {
  switch (message.type) {
    case 'setup': {
      factory = (await loadWorkerModule(message.module)) as StoreModule;
      store = await factory.createStore();
      send({ type: 'ready' });
      return;
    }
    case 'prepare': {
      const algorithm = storeAlgorithm(message.algorithm);
      const failures: string[] = [];
      const options = {
        algorithm,
        store: store!,
        onStoreError: 'deny' as const,
        logger: { warn: (m: string) => void failures.push(m) },
      };
      const limiter = new RateLimiter(options);
      // Warm up: connections open, statements prepared, on another key.
      await new RateLimiter({ ...options, prefix: 'warm' }).consume(message.key);
      prepared = { limiter, key: message.key, calls: message.calls, failures };
      send({ type: 'prepared' });
      return;
    }
    case 'go': {
      const { limiter, key, calls, failures } = prepared!;
      const wait = message.startAt - Date.now();
      if (wait > 2) await new Promise((r) => setTimeout(r, wait - 2));
      while (Date.now() < message.startAt) {
        // The last ms: wait for the shared start instant.
      }
      const startedAt = wallClock();
      // Fired in chunks a turn apart, none awaited: on an asynchronous store all are in flight
      // together; a synchronous one decides each chunk at once, so the firing spans turns
      // and the processes interleave.
      const pending: Promise<Decision>[] = [];
      for (let i = 0; i < calls; i++) {
        if (i > 0 && i % 25 === 0) await new Promise((r) => setImmediate(r));
        pending.push(limiter.consume(key));
      }
      const decisions = await Promise.all(pending);
      const endedAt = wallClock();
      const allowed = decisions.filter((d) => d.allowed).length;
      const report: StoreWorkerReport = {
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
    case 'soak': {
      const target = (await factory!.soakStore?.()) ?? store!;
      send({ type: 'soaked', ...(await soak(target, message)) });
      return;
    }
    case 'exit': {
      await factory?.closeStore();
      process.exit(0);
    }
  }
}

process.on('disconnect', () => process.exit(1));
process.on('message', (message: Message) => {
  handle(message).catch((error: unknown) => {
    send({ type: 'error', error: error instanceof Error ? error.stack : String(error) });
  });
});
