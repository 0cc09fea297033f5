import { type Algorithm, expiryOf, type State } from './algorithm.js';
import type { Decision } from './decision.js';
import { SluiceConfigError } from './errors.js';
import { checkOptionNames } from './known-options.js';
import { LruSlots } from './lru-slots.js';
import type { Store } from './store.js';
import { integerAtLeast } from './validate.js';

/** A key space of a {@link MemoryStore} (see {@link MemoryStore.space}): opaque to callers. */
export type MemoryKeySpace = Map<string, number>;

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * The most keys held at once: an integer >= 1. When full, the least recently used key is
   * dropped (its next request sees a full quota). Default 100 000. Memory grows with the
   * keys actually held (about 80 bytes per GCRA key plus the key's text), not with maxKeys.
   */
  maxKeys?: number;
}

/**
 * The embedded, in-process store (the default). O(1) per decision; the key count is
 * bounded by an LRU so spraying random keys cannot grow memory without limit (one map
 * lookup per decision; single-number states such as GCRA's TAT live unboxed in a
 * `Float64Array`);
 * a key whose state has expired is treated as absent and dropped when seen, and
 * {@link MemoryStore.size} does not count it.
 *
 * Its notion of "now" is the clock of the decisions it makes (the limiter's injected
 * clock), so tests with a fake clock see keys expire on the fake timeline.
 *
 * @throws {@link SluiceConfigError} naming `maxKeys` when it is not an integer >= 1, or an
 *   unknown option name.
 */
export class MemoryStore implements Store {
  readonly maxKeys: number;
  readonly #slots: LruSlots;
  /** Keys given to `consume` (the Store interface): full keys such as `sluice:user:1`. */
  readonly #keys = new Map<string, number>();
  /** Per-limiter key spaces, by prefix (see {@link MemoryStore.space}). */
  readonly #spaces = new Map<string, MemoryKeySpace>();
  /** Single-number states (GCRA TAT), by slot. */
  #numbers = new Float64Array(0);
  /** Array states (windows, logs), by slot; `undefined` where the state is a number. */
  #arrays: (number[] | undefined)[] = [];
  #lastNow = 0;

  constructor(options: MemoryStoreOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new SluiceConfigError('options', options, 'an object { maxKeys? }');
    }
    checkOptionNames(options, ['maxKeys'], 'new MemoryStore()');
    this.maxKeys = integerAtLeast('maxKeys', options.maxKeys ?? 100_000, 1);
    this.#slots = new LruSlots(
      this.maxKeys,
      (length) => {
        const numbers = new Float64Array(length);
        numbers.set(this.#numbers);
        this.#numbers = numbers;
        this.#arrays.length = length;
      },
      (slot) => {
        this.#arrays[slot] = undefined;
      },
    );
  }

  consume(key: string, algorithm: Algorithm, cost: number, nowMs: number): Decision {
    return this.consumeIn(this.#keys, key, algorithm, cost, nowMs);
  }

  /**
   * The key space of one limiter prefix: `consumeIn(space(prefix), key, …)` decides on the
   * same state as `consume(prefix + key, …)` would in a store of its own, without building
   * the prefixed string on every call (the hot path of `RateLimiter`). Spaces are separate
   * from the full keys given to {@link MemoryStore.consume}; all share `maxKeys` and the LRU.
   */
  space(prefix: string): MemoryKeySpace {
    let space = this.#spaces.get(prefix);
    if (space === undefined) {
      space = new Map();
      this.#spaces.set(prefix, space);
    }
    return space;
  }

  /**
   * The keys under `prefix` as a store of their own (see `Store.scope`): decisions go
   * straight to the prefix's key space, searched by the short key.
   */
  scope(prefix: string): Store {
    const space = this.space(prefix);
    return {
      consume: (key, algorithm, cost, nowMs) => this.consumeIn(space, key, algorithm, cost, nowMs),
      reset: (key) => this.reset(key, space),
    };
  }

  /** {@link MemoryStore.consume} in a key space from {@link MemoryStore.space}. */
  consumeIn(
    space: MemoryKeySpace,
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
  ): Decision {
    if (nowMs > this.#lastNow) this.#lastNow = nowMs;
    const slots = this.#slots;
    let slot = space.get(key);
    let state: State | undefined;
    if (slot !== undefined) {
      state = this.#arrays[slot] ?? this.#numbers[slot]!;
      if (expiryOf(state) <= nowMs) state = undefined;
    }
    const result = algorithm.step(state, nowMs, cost);
    const next = result.state;
    if (next !== undefined) {
      if (slot === undefined) slot = slots.insert(space, key);
      else slots.touch(slot);
      if (typeof next === 'number') {
        this.#numbers[slot] = next;
        if (this.#arrays[slot] !== undefined) this.#arrays[slot] = undefined;
      } else {
        this.#arrays[slot] = next;
      }
    } else if (slot !== undefined) {
      if (state === undefined) slots.remove(slot);
      else slots.touch(slot);
    }
    return result.decision;
  }

  /**
   * Forgets a full key (a `RateLimiter`'s keys by their prefixed form too), or, with
   * `space`, `key` in that key space.
   */
  reset(key: string, space?: MemoryKeySpace): void {
    const slot = space === undefined ? this.#find(key) : space.get(key);
    if (slot !== undefined) this.#slots.remove(slot);
  }

  /**
   * The stored state of a full key such as `sluice:user:1` (expired state included), or
   * `undefined`. A `RateLimiter`'s keys are found by their prefixed form too. For tests and
   * tools; O(key spaces).
   */
  inspect(key: string): State | undefined {
    const slot = this.#find(key);
    return slot === undefined ? undefined : this.#stateAt(slot);
  }

  /** The slot of a full key: in the flat key space, else in the key space of its prefix. */
  #find(key: string): number | undefined {
    let slot = this.#keys.get(key);
    if (slot === undefined) {
      for (const [prefix, space] of this.#spaces) {
        if (key.startsWith(prefix)) slot = space.get(key.slice(prefix.length));
        if (slot !== undefined) break;
      }
    }
    return slot;
  }

  /**
   * Drops every key whose state has expired at `nowMs` (default: the latest time this
   * store has decided at). O(keys); {@link MemoryStore.size} calls it.
   * @returns how many keys were dropped.
   */
  prune(nowMs: number = this.#lastNow): number {
    const expired: number[] = [];
    for (const [, slot] of this.#slots.entries()) {
      if (expiryOf(this.#stateAt(slot)) <= nowMs) expired.push(slot);
    }
    for (const slot of expired) this.#slots.remove(slot);
    return expired.length;
  }

  /** The number of live (unexpired) keys held; never more than `maxKeys`. O(keys). */
  get size(): number {
    this.prune();
    return this.#slots.size;
  }

  /** Drops every key. */
  clear(): void {
    this.#slots.clear();
  }

  #stateAt(slot: number): State {
    return this.#arrays[slot] ?? this.#numbers[slot]!;
  }
}
