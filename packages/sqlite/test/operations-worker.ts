// Process B of operations-processes.test.ts (run through test-kit's ts-worker.cjs). Protocol
// over IPC:
//   parent -> { type: 'setup', file, syncMs }   worker -> { type: 'ready' }
//   worker -> { type: 'flip', denied, at }      each time the key's answer changes
//   parent -> { type: 'stop' }                  worker -> { type: 'stopped' }
// The worker decides `KEY` through a RateLimiter on its own SqliteStore (its own connection
// to the file) without pause and reports each change between admitted and denied.
import { gcra, RateLimiter } from '@sluice/core';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/index.js';

export const KEY = 'operated';

type Message = { type: 'setup'; file: string; syncMs: number } | { type: 'stop' };

let running = false;
let state: { db: Database.Database; store: SqliteStore } | undefined;

const now = () => performance.timeOrigin + performance.now();

async function loop(limiter: RateLimiter): Promise<void> {
  let denied: boolean | undefined;
  while (running) {
    const decision = await limiter.consume(KEY);
    if (denied !== !decision.allowed) {
      denied = !decision.allowed;
      process.send!({ type: 'flip', denied, at: now() });
    }
    await new Promise((r) => setTimeout(r, 1));
  }
}

process.on('message', (message: Message) => {
  if (message.type === 'setup') {
    const db = new Database(message.file);
    const store = new SqliteStore({
      database: db,
      sweepIntervalMs: 0,
      operations: { syncMs: message.syncMs },
    });
    state = { db, store };
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 1_000_000, period: '1s' }), store });
    running = true;
    void loop(limiter).catch((error: unknown) =>
      process.send!({ type: 'error', error: String(error) }),
    );
    process.send!({ type: 'ready' });
    return;
  }
  running = false;
  setTimeout(() => {
    state?.store.close();
    state?.db.close();
    process.send!({ type: 'stopped' });
  }, 20);
});
