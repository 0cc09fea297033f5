import { processGlobal } from '../common/process-global.js';
import type { HttpOperations } from '../http/limiter/operated.js';
import type { OperationsSync } from './entry.js';
import type { OperationsSnapshot } from './snapshot.js';

/**
 * The operations snapshots of this process, by store operations and prefix (ESM and
 * CommonJS builds alike), and the factory snapshot.ts provides when it is loaded. Limiters
 * import only this small module: without LimitOperations or a shared store in a bundle,
 * no store can carry entries, and none of the snapshot machinery is bundled.
 */
const state = processGlobal('operationsSnapshots', () => ({
  byStore: new WeakMap<OperationsSync, Map<string, OperationsSnapshot>>(),
  make: undefined as ((sync: OperationsSync, prefix: string) => OperationsSnapshot) | undefined,
  memorySync: undefined as (() => OperationsSync) | undefined,
  http: undefined as HttpOperations | undefined,
}));

/**
 * Called by snapshot.ts when it loads: the snapshot factory (`make`), the factory of
 * `MemoryStore#operations` (memory-sync.ts), what HTTP limiters do when an entry matches
 * (operated.ts), so none of them is in a bundle without operations.
 */
export function provideSnapshots(provided: {
  make: (sync: OperationsSync, prefix: string) => OperationsSnapshot;
  memorySync: () => OperationsSync;
  http: HttpOperations;
}): void {
  state.make = provided.make;
  state.memorySync = provided.memorySync;
  state.http = provided.http;
}

/**
 * What an HTTP limiter does once an entry matches (operated.ts): always there when a
 * limiter has a snapshot, which only snapshot.ts makes.
 */
export function httpOperations(): HttpOperations {
  return state.http!;
}

/**
 * A new in-process {@link OperationsSync} for a `MemoryStore`, or `undefined` while no
 * operations module is loaded (no `LimitOperations`, no `enableOperations()`): then no
 * entry can exist for its limiters to obey.
 */
export function memoryOperations(): OperationsSync | undefined {
  return state.memorySync?.();
}

/**
 * The snapshot of `prefix` on the store whose operations are `sync` (made on first use),
 * or `undefined` when the store has none (or no operations module is loaded). Every limiter
 * on that store and prefix shares it.
 */
export function operationsSnapshot(
  sync: OperationsSync | undefined,
  prefix: string,
): OperationsSnapshot | undefined {
  if (sync === undefined || sync === null || typeof sync.load !== 'function') return undefined;
  const make = state.make;
  if (make === undefined) return undefined;
  let byPrefix = state.byStore.get(sync);
  if (byPrefix === undefined) {
    byPrefix = new Map();
    state.byStore.set(sync, byPrefix);
  }
  let snapshot = byPrefix.get(prefix);
  if (snapshot === undefined) {
    snapshot = make(sync, prefix);
    byPrefix.set(prefix, snapshot);
  }
  return snapshot;
}

/**
 * Stops every snapshot of `sync` syncing (its timers and subscriptions): a store calls it
 * when it closes. Limiters keep deciding from the entries they have.
 *
 * @example
 * ```ts
 * async close() { releaseOperations(this.operations); await this.client.quit(); }
 * ```
 */
export function releaseOperations(sync: OperationsSync): void {
  const byPrefix = state.byStore.get(sync);
  if (byPrefix === undefined) return;
  for (const snapshot of byPrefix.values()) snapshot.close();
  state.byStore.delete(sync);
}
