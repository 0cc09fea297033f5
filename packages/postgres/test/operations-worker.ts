// Process B of operations-processes.test.ts (run through test-kit's ts-worker.cjs). Protocol
// over IPC:
//   parent -> { type: 'setup', url, syncMs, deaf }   worker -> { type: 'ready' }
//   worker -> { type: 'flip', denied, at }            each time the key's answer changes
//   parent -> { type: 'stop' }                        worker -> { type: 'stopped', decisions }
// After 'setup' the worker decides `KEY` through a RateLimiter on its own PostgresStore (its
// own pg Pool) without pause, one decision in flight at a time (traffic that flows), and
// reports every change between admitted and denied with the wall time it saw it
// (`performance.timeOrigin + performance.now()`, comparable across processes of a machine).
// With `deaf`, its store hears no notification: only the version check every `syncMs`.
import { gcra, LimitOperations, RateLimiter } from '@sluice/core';
import pg from 'pg';
import { PostgresStore } from '../src/index.js';

export const KEY = 'operated';

type Message = { type: 'setup'; url: string; syncMs: number; deaf: boolean } | { type: 'stop' };

let running = false;
let decisions = 0;
let state: { pool: pg.Pool; store: PostgresStore } | undefined;

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
    // Yield to the event loop (notifications, timers) between decisions; a denial is decided
    // in process (no round trip), so 1 ms apart, not a busy loop.
    await new Promise((r) => (denied ? setTimeout(r, 1) : setImmediate(r)));
  }
}

async function handle(message: Message): Promise<void> {
  if (message.type === 'setup') {
    const pool = new pg.Pool({ connectionString: message.url, max: 4 });
    pool.on('error', () => undefined);
    const store = new PostgresStore({ client: pool, timeoutMs: 5000, sweepIntervalMs: 0 });
    if (message.deaf) {
      // Hears no notification: only the syncMs version check remains.
      (store.operations as { subscribe: unknown }).subscribe = () => () => undefined;
    }
    // The process's snapshot of prefix 'sl' re-checks the version every syncMs.
    new LimitOperations({ store, syncMs: message.syncMs });
    // A rate no test comes near: every denial is the operator's.
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 1_000_000, period: '1s' }), store });
    await limiter.consume('warm');
    // The LISTEN stands before the first trial.
    await new Promise((r) => setTimeout(r, 200));
    state = { pool, store };
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
  await state?.pool.end();
  process.send!({ type: 'stopped', decisions });
}

process.on('message', (message: Message) => {
  handle(message).catch((error: unknown) => process.send!({ type: 'error', error: String(error) }));
});
