// A worker process of a store soak (describeStoreSoak in store-soak.ts, and the bench's
// bench/src/stores-soak.ts), run through ts-worker.cjs or tsx. Protocol over IPC:
//   parent -> { type: 'setup', module }                     worker -> { type: 'ready' }
//   parent -> { type: 'run', ms, keys, inflight, seed }     worker -> { type: 'done', ...SoakReport }
// `module` exports `createStore(): Promise<Store>` and `closeStore()`. For `ms`, `inflight`
// loops each decide random stacks of 1 to 3 limits (mixed algorithms) over `keys` keys: one
// `consume`, or one `consumeAll` for a stack, straight on the store (no fallback hides an
// error), and count every error by kind.
import { fixedWindow, gcra, type Store, slidingWindow } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { loadWorkerModule } from './load-module.js';
import { seededRandom } from './store-traces.js';

/** What a soak worker reports. */
export interface SoakReport {
  decisions: number;
  allowed: number;
  /** PostgreSQL deadlocks (40P01): must be 0. */
  deadlocks: number;
  /** SQLITE_BUSY (a lock not obtained within the busy timeout): must be 0. */
  busy: number;
  /** Every other error, by message (first 120 characters). */
  errors: Record<string, number>;
}

/** The limits a stack draws from: each on its own key space. */
const LIMITS: readonly Algorithm[] = [
  gcra({ rate: 50, period: '1s' }),
  fixedWindow({ limit: 200, window: '10s' }),
  slidingWindow({ limit: 100, window: '5s' }),
];

let store: Store | undefined;
let factory: { createStore(): Promise<Store>; closeStore(): Promise<void> } | undefined;

/** Runs the soak loops on `store` and reports (also used in process by tests). */
export async function soak(
  target: Store,
  options: { ms: number; keys: number; inflight: number; seed: number },
): Promise<SoakReport> {
  const report: SoakReport = { decisions: 0, allowed: 0, deadlocks: 0, busy: 0, errors: {} };
  const end = performance.now() + options.ms;
  const loop = async (seed: number) => {
    const rand = seededRandom(seed);
    while (performance.now() < end) {
      const size = 1 + Math.floor(rand() * 3);
      const picked = new Set<number>();
      while (picked.size < size) picked.add(Math.floor(rand() * LIMITS.length));
      const requests = [...picked].map((l) => ({
        key: `soak:${l}:${Math.floor(rand() * options.keys)}`,
        algorithm: LIMITS[l]!,
        cost: 1,
      }));
      try {
        const now = Date.now();
        const decisions =
          requests.length === 1
            ? [await target.consume(requests[0]!.key, requests[0]!.algorithm, 1, now)]
            : await target.consumeAll!(requests, now);
        report.decisions++;
        if (decisions.every((d) => d.allowed)) report.allowed++;
      } catch (error) {
        const e = error as { code?: unknown; message?: unknown };
        const text = String(e?.message ?? error);
        if (e?.code === '40P01' || /deadlock/i.test(text)) report.deadlocks++;
        else if (String(e?.code).startsWith('SQLITE_BUSY') || /database is locked/i.test(text)) {
          report.busy++;
        } else {
          const k = text.slice(0, 120);
          report.errors[k] = (report.errors[k] ?? 0) + 1;
        }
      }
      // A synchronous store would never yield: let the other loops and IPC run.
      if (report.decisions % 64 === 0) await new Promise((r) => setImmediate(r));
    }
  };
  await Promise.all(
    Array.from({ length: options.inflight }, (_, i) => loop(options.seed * 1000 + i)),
  );
  return report;
}

type Message =
  | { type: 'setup'; module: string }
  | { type: 'run'; ms: number; keys: number; inflight: number; seed: number }
  | { type: 'exit' };

async function handle(message: Message): Promise<void> {
  switch (message.type) {
    case 'setup':
      factory = (await loadWorkerModule(message.module)) as typeof factory;
      store = await factory!.createStore();
      process.send!({ type: 'ready' });
      return;
    case 'run':
      process.send!({ type: 'done', ...(await soak(store!, message)) });
      return;
    case 'exit':
      await factory?.closeStore();
      process.exit(0);
  }
}

// Only as a forked worker (the bench and tests import `soak` too).
if (process.send !== undefined && process.env.SLUICE_SOAK_WORKER === '1') {
  process.on('disconnect', () => process.exit(1));
  process.on('message', (message: Message) => {
    handle(message).catch((error: unknown) => {
      process.send!({ type: 'error', error: error instanceof Error ? error.stack : String(error) });
    });
  });
}
