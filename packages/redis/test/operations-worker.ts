// Process B of operations-processes.test.ts (run through ts-worker.cjs). Protocol over IPC:
//   parent -> { type: 'setup', port | sentinel, syncMs, deaf }   worker -> { type: 'ready' }
//   worker -> { type: 'flip', denied, at }             each time the key's answer changes
//   parent -> { type: 'stop' }                         worker -> { type: 'stopped', decisions }
// After 'setup' the worker decides `KEY` through a RateLimiter on its own RedisStore (its own
// ioredis client) without pause, one decision in flight at a time (traffic that flows), and
// reports every change between admitted and denied with the wall time it saw it
// (`performance.timeOrigin + performance.now()`, comparable across processes of a machine).
// With `deaf`, its store hears no pub/sub message (a subscriber that drops them): only the
// version check every `syncMs` brings the changes.
import { gcra, LimitOperations, RateLimiter } from '@sluice/core';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

export const KEY = 'operated';

/**
 * How B is set up: on the standalone Redis at `port`, or through the Sentinels at
 * `sentinel.ports` watching `sentinel.name` (its client follows a failover).
 */
export interface WorkerSetup {
  port?: number;
  sentinel?: { name: string; ports: number[] };
  syncMs: number;
  deaf: boolean;
}

type Message = ({ type: 'setup' } & WorkerSetup) | { type: 'stop' };

let running = false;
let decisions = 0;
let state: { client: Redis; store: RedisStore } | undefined;

const now = () => performance.timeOrigin + performance.now();

async function loop(limiter: RateLimiter): Promise<void> {
  let denied: boolean | undefined;
  while (running) {
    const decision = await limiter.consume(KEY);
    decisions++;
    if (denied !== !decision.allowed) {
      denied = !decision.allowed;
      process.send!({ type: 'flip', denied, at: now() });
    }
    // Yield to the event loop (pub/sub messages, timers) between decisions; a denial is
    // decided in process (no round trip), so 1 ms apart, not a busy loop.
    await new Promise((r) => (denied ? setTimeout(r, 1) : setImmediate(r)));
  }
}

async function handle(message: Message): Promise<void> {
  if (message.type === 'setup') {
    const sentinel = message.sentinel;
    const client =
      sentinel === undefined
        ? new Redis({ host: '127.0.0.1', port: message.port })
        : new Redis({
            name: sentinel.name,
            sentinels: sentinel.ports.map((port) => ({ host: '127.0.0.1', port })),
          });
    client.on('error', () => undefined);
    const store = new RedisStore({ client, timeoutMs: 5000 });
    if (message.deaf) {
      // A subscriber that drops every message: only the syncMs version check remains.
      (store.operations as { subscribe: unknown }).subscribe = () => () => undefined;
    }
    // The process's snapshot of prefix 'sl' re-checks the version every syncMs.
    new LimitOperations({ store, syncMs: message.syncMs });
    // A rate no test comes near: every denial is the operator's.
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 1_000_000, period: '1s' }), store });
    await limiter.consume('warm');
    state = { client, store };
    running = true;
    void loop(limiter).catch((error: unknown) =>
      process.send!({ type: 'error', error: String(error) }),
    );
    process.send!({ type: 'ready' });
    return;
  }
  running = false;
  await new Promise((r) => setTimeout(r, 50));
  await state?.store.close();
  state?.client.disconnect();
  process.send!({ type: 'stopped', decisions });
}

process.on('message', (message: Message) => {
  handle(message).catch((error: unknown) => process.send!({ type: 'error', error: String(error) }));
});
