import type { Algorithm } from '../../algorithms/algorithm.js';
import type { Decision } from '../../algorithms/decision.js';
import type { CostAfter } from '../../limits/limit.js';
import { consumeEach, type Store, type StoreRequest } from '../../stores/store.js';

/**
 * A key space: where a limit's keys for one route and kind of subject live; a key's text is
 * `prefix + subject`. For the limits that last as long as the limiter, `store` is the
 * store's own view of `prefix` (`keySpaceView`, `Store.scope`: on a MemoryStore a key space of
 * its own, searched by the short subject, whose hash V8 caches on the string); `undefined`:
 * the full key is built per decision.
 */
export interface KeySpace {
  prefix: string;
  store: Store | undefined;
}

/**
 * A charge: what one request takes under one limit: its key (key space and subject), the
 * algorithm deciding it and its cost.
 */
export interface Charge {
  keySpace: KeySpace;
  subject: string;
  algorithm: Algorithm;
  cost: number;
  /** How the cost is settled from the response (`Limit.costAfter`), or `undefined`. */
  costAfter?: CostAfter | undefined;
}

/** Decides `charge` with `cost` (0: a peek) in `store`, through its key space's store if any. */
export function consumeAt(
  store: Store,
  charge: Charge,
  cost: number,
  now: number,
): Decision | Promise<Decision> {
  const { keySpace, subject } = charge;
  return keySpace.store !== undefined
    ? keySpace.store.consume(subject, charge.algorithm, cost, now)
    : store.consume(keySpace.prefix + subject, charge.algorithm, cost, now);
}

/**
 * Consumes every charge or none. With a store that has `consumeAll` (RedisStore, MemoryStore,
 * FailSafeStore around them) it decides them in one all-or-nothing call, atomic under
 * concurrency too; otherwise it peeks each charge (cost 0) and, only if each fits
 * (`cost <= remaining`, each algorithm's admission rule), consumes each ({@link consumeEach}):
 * atomic on a synchronous store only.
 */
export function consumeAll(
  store: Store,
  charges: Charge[],
  now: number,
): Decision[] | Promise<Decision[]> {
  // An adaptive limit is decided by its own gate (`keySpace.store`), outside the store's
  // all-or-nothing call: peek each, then consume each (consumeEach).
  if (
    typeof store.consumeAll === 'function' &&
    !charges.some((c) => c.algorithm.kind === 'adaptive')
  ) {
    const requests = charges.map(
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
    charges.map((c) => c.cost),
    (i, cost) => consumeAt(store, charges[i]!, cost, now),
  );
}
