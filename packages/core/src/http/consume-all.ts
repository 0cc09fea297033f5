import type { Algorithm } from '../algorithms/algorithm.js';
import type { Decision } from '../algorithms/decision.js';
import type { CostAfter } from '../limits/limit.js';
import { consumeEach, type Store, type StoreRequest } from '../stores/store.js';
import type { KeySpace } from './plan.js';

/** A key of one request under one limit. */
export interface Entry {
  keySpace: KeySpace;
  subject: string;
  algorithm: Algorithm;
  cost: number;
  /** How the cost is settled from the response (`Limit.costAfter`), or `undefined`. */
  costAfter?: CostAfter | undefined;
}

/** Decides `entry` with `cost` (0: a peek) in `store`, through its key space's store when it has one. */
export function consumeAt(
  store: Store,
  entry: Entry,
  cost: number,
  now: number,
): Decision | Promise<Decision> {
  const { keySpace, subject } = entry;
  return keySpace.store !== undefined
    ? keySpace.store.consume(subject, entry.algorithm, cost, now)
    : store.consume(keySpace.prefix + subject, entry.algorithm, cost, now);
}

/**
 * Consumes every entry or none. With a store that has `consumeAll` (RedisStore, MemoryStore,
 * FailSafeStore around them) it decides them in one all-or-nothing call, atomic under
 * concurrency too; otherwise it peeks each entry (cost 0) and, only if each fits
 * (`cost <= remaining`, each algorithm's admission rule), consumes each ({@link consumeEach}):
 * atomic on a synchronous store only.
 */
export function consumeAll(
  store: Store,
  entries: Entry[],
  now: number,
): Decision[] | Promise<Decision[]> {
  if (typeof store.consumeAll === 'function') {
    const requests = entries.map(
      ({ keySpace, subject, algorithm, cost }): StoreRequest =>
        // A lasting key space is `store.scope(prefix)`: the request names it (on a MemoryStore a
        // key space of its own); otherwise the limiter uses the full key.
        keySpace.store !== undefined
          ? { key: subject, prefix: keySpace.prefix, algorithm, cost }
          : { key: keySpace.prefix + subject, algorithm, cost },
    );
    return store.consumeAll(requests, now);
  }
  return consumeEach(
    entries.map((e) => e.cost),
    (i, cost) => consumeAt(store, entries[i]!, cost, now),
  );
}
