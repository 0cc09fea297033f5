import type { Algorithm } from './algorithm.js';
import type { Decision } from './decision.js';

/**
 * Where limit state lives. A store runs one whole decision atomically: read the key's
 * state, run the algorithm's step, write the new state with its expiry. The in-memory
 * {@link MemoryStore} does it synchronously; `RedisStore` in @sluice/redis does it with one
 * `EVALSHA` of the algorithm's Lua twin.
 */
export interface Store {
  /**
   * Decides one request on `key` and records it if admitted.
   *
   * @param key - the full key (the limiter has already applied its prefix).
   * @param algorithm - which algorithm and parameters to run.
   * @param cost - units asked for: an integer >= 0 (0 = peek), already checked.
   * @param nowMs - the limiter's clock in ms since the Unix epoch. A store that keeps its
   *   own time (Redis `TIME`) may ignore it.
   */
  consume(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
  ): Decision | Promise<Decision>;

  /** Forgets `key`: its next decision sees a full quota. */
  reset(key: string): void | Promise<void>;

  /**
   * Optional: the keys under `prefix` as a store of their own, so `scope(p).consume(k, …)`
   * decides exactly as `consume(p + k, …)`. Limiters ask for it once per prefix and keep it;
   * a store implements it when it can decide faster without building `p + k` per call
   * (`MemoryStore`: a key space of its own). Default: {@link scopeOf} prefixes each key.
   */
  scope?(prefix: string): Store;

  /**
   * Optional: the failure domain `key` lives in, for a store whose parts fail apart (on a
   * Redis Cluster, the master node serving the key's slot, e.g. `'127.0.0.1:7001'`). A
   * limiter keeps one circuit breaker per domain, so one node down does not stop the calls
   * to the others. Without it the whole store is one domain. Must be cheap and never throw.
   *
   * @example
   * ```ts
   * failureDomain: (key) => nodeOf(slotOf(key)) ?? ''
   * ```
   */
  failureDomain?(key: string): string;
}

/** `store.scope(prefix)`, or a view of `store` that prefixes every key with `prefix`. */
export function scopeOf(store: Store, prefix: string): Store {
  if (typeof store.scope === 'function') return store.scope(prefix);
  return {
    consume: (key, algorithm, cost, nowMs) => store.consume(prefix + key, algorithm, cost, nowMs),
    reset: (key) => store.reset(prefix + key),
  };
}
