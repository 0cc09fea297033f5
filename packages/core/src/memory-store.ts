import { LRUCache } from 'lru-cache';
import { type Algorithm, expiryOf, type State } from './algorithm.js';
import type { Decision } from './decision.js';
import { SluiceConfigError } from './errors.js';
import type { Store } from './store.js';
import { integerAtLeast } from './validate.js';

// lru-cache's get/set default their options argument to a fresh `{}` and write `status`
// into it; passing one reused object each (its `status` cleared before each call, so a
// diagnostics subscriber still gets a fresh status object) saves that allocation.
const GET_OPTIONS: LRUCache.GetOptions<string, State, unknown> = {};
const SET_OPTIONS: LRUCache.SetOptions<string, State, unknown> = {};

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * The most keys held at once: an integer >= 1. When full, the least recently used key is
   * dropped (its next request sees a full quota). Default 100 000 (about 8 MB of state).
   */
  maxKeys?: number;
}

/**
 * The embedded, in-process store (the default). O(1) per decision; the key count is
 * bounded by an LRU (`lru-cache`) so spraying random keys cannot grow memory without limit;
 * a key whose state has expired is treated as absent and dropped when seen, and
 * {@link MemoryStore.size} does not count it.
 *
 * Its notion of "now" is the clock of the decisions it makes (the limiter's injected
 * clock), so tests with a fake clock see keys expire on the fake timeline.
 *
 * @throws {@link SluiceConfigError} naming `maxKeys` when it is not an integer >= 1.
 */
export class MemoryStore implements Store {
  readonly maxKeys: number;
  readonly #cache: LRUCache<string, State>;
  #lastNow = 0;

  constructor(options: MemoryStoreOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new SluiceConfigError('options', options, 'an object { maxKeys? }');
    }
    this.maxKeys = integerAtLeast('maxKeys', options.maxKeys ?? 100_000, 1);
    this.#cache = new LRUCache<string, State>({ max: this.maxKeys });
  }

  consume(key: string, algorithm: Algorithm, cost: number, nowMs: number): Decision {
    if (nowMs > this.#lastNow) this.#lastNow = nowMs;
    const cache = this.#cache;
    GET_OPTIONS.status = undefined;
    const held = cache.get(key, GET_OPTIONS);
    const expired = held !== undefined && expiryOf(held) <= nowMs;
    const result = algorithm.step(expired ? undefined : held, nowMs, cost);
    // Overwrite in place rather than delete + set: lru-cache's delete of its last key
    // clears (fills) its whole preallocated key and value lists, O(maxKeys).
    if (result.state !== undefined) {
      SET_OPTIONS.status = undefined;
      cache.set(key, result.state, SET_OPTIONS);
    } else if (expired) cache.delete(key);
    return result.decision;
  }

  reset(key: string): void {
    this.#cache.delete(key);
  }

  /** The stored state of `key`, or `undefined` (expired state included). For tests and tools. */
  inspect(key: string): State | undefined {
    return this.#cache.peek(key);
  }

  /**
   * Drops every key whose state has expired at `nowMs` (default: the latest time this
   * store has decided at). O(keys); {@link MemoryStore.size} calls it.
   * @returns how many keys were dropped.
   */
  prune(nowMs: number = this.#lastNow): number {
    const expired: string[] = [];
    for (const [key, state] of this.#cache.entries()) {
      if (expiryOf(state) <= nowMs) expired.push(key);
    }
    for (const key of expired) this.#cache.delete(key);
    return expired.length;
  }

  /** The number of live (unexpired) keys held; never more than `maxKeys`. O(keys). */
  get size(): number {
    this.prune();
    return this.#cache.size;
  }

  /** Drops every key. */
  clear(): void {
    this.#cache.clear();
  }
}
