import { type Algorithm, expiryOf, type State } from '../algorithms/algorithm.js';
import { stepAtMost } from '../algorithms/at-most.js';
import type { Decision } from '../algorithms/decision.js';
import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames } from '../common/known-options.js';
import { integerAtLeast } from '../common/validate.js';
import type { OperationsSync } from '../operations/entry.js';
import { memoryOperations } from '../operations/registry.js';
import { FlatGroups } from './flat-groups.js';
import { keySpacesOf } from './key-spaces.js';
import { LruSlots } from './lru-slots.js';
import {
  checkFingerprint,
  checkSnapshot,
  type MemoryStoreSnapshot,
  SNAPSHOT_FORMAT,
} from './memory-snapshot.js';
import { consumeEach, type Store, type StoreRequest, type StoreReservation } from './store.js';

/** A key space of a {@link MemoryStore} (see {@link MemoryStore.space}): opaque to callers. */
export type MemoryKeySpace = number & { readonly memoryKeySpace: never };

/** The key space of the full keys given to `consume` (the flat groups' first group, 0). */
const FLAT = 0 as MemoryKeySpace;

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * The most keys held at once: an integer >= 1. When full, one key is dropped to make room
   * (its next request sees a full quota): an expired key if a short sweep finds one, else a
   * key chosen fairly between key spaces, open keys before denied ones (see
   * {@link MemoryStore}). Default 100 000. Memory grows with the keys actually held (about
   * 42 bytes per GCRA key at 100 000 keys, 40 at 1 000 000, plus the key's text), not with
   * maxKeys.
   */
  maxKeys?: number;
}

/** Slots looked at for an expired key before a live key is evicted. */
const SWEEP_SLOTS = 4;

/**
 * The embedded, in-process store (the default). O(1) per decision; the key count is
 * bounded by `maxKeys` so spraying random keys cannot grow memory without limit (one
 * hash-table lookup per decision, the table in typed arrays; single-number states such as
 * GCRA's TAT live unboxed in a `Float64Array`);
 * a key whose state has expired is treated as absent and dropped when seen, and
 * {@link MemoryStore.size} does not count it.
 *
 * **Eviction** (when `maxKeys` keys are held and a new key comes): spraying keys cannot
 * reset someone else's bucket.
 * 1. An expired key, if one of the next few slots of a sweep through the store holds one.
 * 2. Else a key of the inserting key space when it holds at least its share of the store
 *    (`maxKeys / key spaces holding keys`), otherwise of a key space over its share. A key
 *    space is a limiter prefix's ({@link MemoryStore.space}: one per `RateLimiter` prefix,
 *    one per HTTP limit, route and kind of subject); flat keys are grouped by their text up
 *    to the second `:`. So a million keys sprayed through one limiter evict that limiter's
 *    own keys, not another's (unless the other holds more than its share).
 * 3. Within that key space: a key whose last decision was a denial is kept until that
 *    denial's retry time (`now + retryAfterMs`, rounded up to the whole second) while the space has any other key to give;
 *    among the rest, the least recently used goes.
 *
 * Its notion of "now" is the clock of the decisions it makes (the limiter's injected
 * clock), so tests with a fake clock see keys expire on the fake timeline.
 *
 * @example
 * ```ts
 * const store = new MemoryStore({ maxKeys: 50_000 });
 * const api = new RateLimiter({ algorithm: gcra({ rate: 100, period: '1m' }), store, prefix: 'api' });
 * const login = new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }), store, prefix: 'login' });
 * // However many distinct keys go through `api`, an exhausted `login` key stays denied.
 * ```
 *
 * @throws {@link SluiceConfigError} naming `maxKeys` when it is not an integer >= 1, or an
 *   unknown option name.
 */
export class MemoryStore implements Store {
  /** The most keys the store holds (option `maxKeys`); beyond it the least recently used go. */
  readonly maxKeys: number;
  readonly #slots: LruSlots;
  /** The eviction groups of flat keys (see flat-groups.ts). */
  readonly #flatGroups: FlatGroups;
  /** Per-limiter key spaces, by prefix (see {@link MemoryStore.space}). */
  readonly #spaces = new Map<string, MemoryKeySpace>();
  /** Single-number states (GCRA TAT), by slot. */
  #numbers = new Float64Array(0);
  /**
   * Array states (windows, logs), by slot; `undefined` where the state is a number, and as a
   * whole until the first array state (a GCRA-only store pays no 8 B per key for it).
   */
  #arrays: (number[] | undefined)[] | undefined;
  #lastNow = 0;
  /** {@link MemoryStore.operations}, made on first read. */
  #operations: OperationsSync | undefined;
  /** The next slot the sweep for expired keys looks at. */
  #sweep = 0;

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
        if (this.#arrays !== undefined) this.#arrays.length = length;
      },
      (slot) => {
        if (this.#arrays !== undefined) this.#arrays[slot] = undefined;
      },
    );
    this.#flatGroups = new FlatGroups(() => this.#slots.addGroup(FLAT));
  }

  /**
   * Operator entries of `LimitOperations` on this store: kept in this process only
   * (`shared: false`); every limiter on this store and prefix obeys them. `undefined` in a
   * bundle without `LimitOperations` (nor `enableOperations()`), where no entry can be
   * written: what keeps them is then left out of it.
   */
  get operations(): OperationsSync | undefined {
    this.#operations ??= memoryOperations();
    return this.#operations;
  }

  consume(key: string, algorithm: Algorithm, cost: number, nowMs: number): Decision {
    return this.consumeIn(FLAT, key, algorithm, cost, nowMs);
  }

  /**
   * The key space of one limiter prefix: `consumeIn(space(prefix), key, …)` decides on the
   * same state as `consume(prefix + key, …)` would in a store of its own, without building
   * the prefixed string on every call (the hot path of `RateLimiter`). Spaces are separate
   * from the full keys given to {@link MemoryStore.consume}; all share `maxKeys`, and each
   * is one eviction group (see {@link MemoryStore}).
   */
  space(prefix: string): MemoryKeySpace {
    let space = this.#spaces.get(prefix);
    if (space === undefined) {
      // A key space is the id of its one eviction group.
      space = this.#slots.addGroup() as MemoryKeySpace;
      this.#spaces.set(prefix, space);
    }
    return space;
  }

  /**
   * The key space of `prefix` as a store of its own (see `Store.scope`): decisions go
   * straight to the prefix's key space, searched by the short key.
   */
  scope(prefix: string): Store {
    const space = this.space(prefix);
    return {
      consume: (key, algorithm, cost, nowMs) => this.consumeIn(space, key, algorithm, cost, nowMs),
      reset: (key) => this.reset(key, space),
      refund: (key, algorithm, cost, nowMs, atMs) =>
        this.refundIn(space, key, algorithm, cost, nowMs, atMs),
      reserve: (key, algorithm, cost, nowMs, maxWaitMs) =>
        this.reserveIn(space, key, algorithm, cost, nowMs, maxWaitMs),
      consumeAtMost: (key, algorithm, max, nowMs) =>
        this.consumeAtMostIn(space, key, algorithm, max, nowMs),
    };
  }

  /** {@link Store.reserve}: books a future slot by the algorithm's `reserve`. */
  reserve(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    maxWaitMs: number,
  ): StoreReservation {
    return this.reserveIn(FLAT, key, algorithm, cost, nowMs, maxWaitMs);
  }

  /**
   * {@link MemoryStore.reserve} in a key space from {@link MemoryStore.space}.
   * @throws `TypeError` for an algorithm without `reserve` (a window: no future slot).
   */
  // biome-ignore lint/complexity/useMaxParams: positional like consume, no options object per call
  reserveIn(
    space: MemoryKeySpace,
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    maxWaitMs: number,
  ): StoreReservation {
    if (typeof algorithm.reserve !== 'function') {
      throw new TypeError(
        `sluice: algorithm ${algorithm.description} has no future slot to reserve`,
      );
    }
    if (nowMs > this.#lastNow) this.#lastNow = nowMs;
    const slot = this.#slots.find(space, key);
    const state = this.#liveState(slot, nowMs);
    const result = algorithm.reserve(state, nowMs, cost, maxWaitMs);
    const d = result.decision;
    this.#writeBack(space, key, slot, state, result.state, d.allowed, d.retryAfterMs, cost, nowMs);
    return { decision: result.decision, delayMs: result.delayMs };
  }

  /**
   * {@link Store.reserveAll}: every request's slot booked, or none. Synchronous, so atomic:
   * asks each algorithm's `reserve` on the key's state without writing, then books each only
   * if all book. A request with a `prefix` is in that prefix's key space.
   * @throws `TypeError` for an algorithm without `reserve` (a window: no future slot).
   */
  reserveAll(
    requests: readonly StoreRequest[],
    nowMs: number,
    maxWaitMs: number,
  ): StoreReservation[] {
    const spaces = requests.map((r) => (r.prefix === undefined ? FLAT : this.space(r.prefix)));
    const trial = requests.map((r, i) => {
      if (typeof r.algorithm.reserve !== 'function') {
        throw new TypeError(
          `sluice: algorithm ${r.algorithm.description} has no future slot to reserve`,
        );
      }
      const slot = this.#slots.find(spaces[i]!, r.key);
      let state = slot === undefined ? undefined : this.#stateAt(slot);
      if (state !== undefined && expiryOf(state) <= nowMs) state = undefined;
      return r.algorithm.reserve(state, nowMs, r.cost, maxWaitMs);
    });
    // Nothing booked: the ones that would book report their peek with their cost.
    const none = (denied: number, denial?: Decision): StoreReservation[] =>
      requests.map((r, i) => {
        const d = i === denied ? denial! : trial[i]!.decision;
        if (!d.allowed || r.cost === 0) return { decision: d, delayMs: 0 };
        const peek = this.consumeIn(spaces[i]!, r.key, r.algorithm, 0, nowMs);
        return { decision: { ...peek, cost: r.cost }, delayMs: 0 };
      });
    // A cost 0 part is a peek: it books nothing and is in the way of nothing.
    const fits = (d: Decision, i: number) => d.allowed || requests[i]!.cost === 0;
    if (!trial.every((t, i) => fits(t.decision, i))) return none(-1);
    const booked: StoreReservation[] = [];
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      const b = this.reserveIn(spaces[i]!, r.key, r.algorithm, r.cost, nowMs, maxWaitMs);
      if (!fits(b.decision, i)) {
        // One key asked for twice did not fit twice: give back what was booked.
        for (let j = 0; j < i; j++) {
          const q = requests[j]!;
          this.refundIn(spaces[j]!, q.key, q.algorithm, q.cost, nowMs, nowMs);
        }
        return none(i, b.decision);
      }
      booked.push(b);
    }
    return booked;
  }

  /**
   * {@link Store.consumeAtMost}: grants up to `max` units by `stepAtMost` (at-most.ts).
   * Synchronous, so atomic.
   */
  consumeAtMost(key: string, algorithm: Algorithm, max: number, nowMs: number): Decision {
    return this.consumeAtMostIn(FLAT, key, algorithm, max, nowMs);
  }

  /** {@link MemoryStore.consumeAtMost} in a key space from {@link MemoryStore.space}. */
  consumeAtMostIn(
    space: MemoryKeySpace,
    key: string,
    algorithm: Algorithm,
    max: number,
    nowMs: number,
  ): Decision {
    if (nowMs > this.#lastNow) this.#lastNow = nowMs;
    const slot = this.#slots.find(space, key);
    const state = this.#liveState(slot, nowMs);
    const result = stepAtMost(algorithm, state, nowMs, max);
    const d = result.decision;
    this.#writeBack(
      space,
      key,
      slot,
      state,
      result.state,
      d.allowed,
      d.retryAfterMs,
      d.cost,
      nowMs,
    );
    return d;
  }

  /** {@link Store.refund}: gives back `cost` units charged at `atMs` (the algorithm's `refund`). */
  refund(key: string, algorithm: Algorithm, cost: number, nowMs: number, atMs: number): Decision {
    return this.refundIn(FLAT, key, algorithm, cost, nowMs, atMs);
  }

  /**
   * {@link MemoryStore.refund} in a key space from {@link MemoryStore.space}.
   * @throws `TypeError` for an algorithm without `refund` (a custom one).
   */
  // biome-ignore lint/complexity/useMaxParams: perf: per give-back; positional like consume, no options object per call
  refundIn(
    space: MemoryKeySpace,
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    atMs: number,
  ): Decision {
    if (typeof algorithm.refund !== 'function') {
      throw new TypeError(`sluice: algorithm ${algorithm.description} has no refund`);
    }
    const slot = this.#slots.find(space, key);
    const state = this.#liveState(slot, nowMs);
    const result = algorithm.refund(state, nowMs, cost, atMs);
    const next = result.state;
    if (slot !== undefined && next === null) this.#slots.remove(slot);
    else if (next !== undefined && next !== null) {
      // A negative cost (a charge past the limit) can give a key that had no state one.
      const target = slot ?? this.#insert(space, key, nowMs);
      this.#write(target, next);
      this.#slots.touch(target);
    }
    return result.decision;
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
    const slot = slots.find(space, key);
    let state: State | undefined;
    if (slot !== undefined) {
      state = this.#stateAt(slot);
      if (expiryOf(state) <= nowMs) state = undefined;
    }
    const result = algorithm.step(state, nowMs, cost);
    const next = result.state;
    const decision = result.decision;
    // Neither `result` nor `decision` is passed on: a caller that drops or only reads the
    // decision then allocates neither (escape analysis).
    if (next === undefined || slot === undefined || !decision.allowed) {
      this.#writeBack(
        space,
        key,
        slot,
        state,
        next,
        decision.allowed,
        decision.retryAfterMs,
        cost,
        nowMs,
      );
      return decision;
    }
    // The common case, kept small so it inlines: an admitted request on a held key.
    slots.allow(slot);
    this.#write(slot, next);
    return decision;
  }

  /**
   * The rest of {@link MemoryStore.consumeIn}, writing the decision back to the key's slot: a
   * new key, a peek, a denial (remembered with its retry time, see the class comment), or a
   * key left with no state.
   */
  // biome-ignore lint/complexity/useMaxParams: perf: per decision; positional, no options object per call
  #writeBack(
    space: MemoryKeySpace,
    key: string,
    found: number | undefined,
    state: State | undefined,
    next: State | undefined,
    allowed: boolean,
    retryAfterMs: number,
    cost: number,
    nowMs: number,
  ): void {
    const slots = this.#slots;
    let slot = found;
    if (next !== undefined) {
      if (slot === undefined) slot = this.#insert(space, key, nowMs);
      this.#write(slot, next);
    } else if (slot === undefined) {
      return;
    } else if (state === undefined) {
      slots.remove(slot);
      return;
    }
    if (allowed) {
      if (cost > 0) slots.allow(slot);
      else slots.touch(slot);
    } else if (retryAfterMs > 0) {
      slots.deny(slot, nowMs + retryAfterMs);
    } else {
      slots.touch(slot);
    }
  }

  /** A slot for `key`, new in `space`: after an expired key if the sweep finds one. */
  #insert(space: MemoryKeySpace, key: string, nowMs: number): number {
    const slots = this.#slots;
    if (slots.size >= this.maxKeys) this.#dropExpired(nowMs);
    return slots.insert(space === FLAT ? this.#flatGroups.of(key) : space, key, nowMs);
  }

  /** Looks at the next {@link SWEEP_SLOTS} slots and drops the first expired key there. */
  #dropExpired(nowMs: number): void {
    const slots = this.#slots;
    const span = slots.span;
    let slot = this.#sweep;
    for (let i = 0; i < SWEEP_SLOTS; i++) {
      if (slot >= span) slot = 0;
      if (slots.holds(slot) && expiryOf(this.#stateAt(slot)) <= nowMs) {
        slots.remove(slot);
        this.#sweep = slot + 1;
        return;
      }
      slot++;
    }
    this.#sweep = slot;
  }

  /**
   * Forgets a full key (a `RateLimiter`'s keys by their prefixed form too), or, with
   * `space`, `key` in that key space.
   */
  /** {@link Store.ready}: in memory, always ready. */
  ready(): Promise<void> {
    return Promise.resolve();
  }

  reset(key: string, space?: MemoryKeySpace): void {
    const slot = space === undefined ? this.#find(key) : this.#slots.find(space, key);
    if (slot !== undefined) this.#slots.remove(slot);
  }

  /**
   * The stored state of a full key such as `sl:user:1` (expired state included), or
   * `undefined`. A `RateLimiter`'s keys are found by their prefixed form too. For tests and
   * tools; O(key spaces).
   */
  inspect(key: string): State | undefined {
    const slot = this.#find(key);
    return slot === undefined ? undefined : this.#stateAt(slot);
  }

  /** The slot of a full key: in the flat key space, else in the key space of its prefix. */
  #find(key: string): number | undefined {
    let slot = this.#slots.find(FLAT, key);
    if (slot === undefined) {
      for (const [prefix, space] of this.#spaces) {
        if (key.startsWith(prefix)) slot = this.#slots.find(space, key.slice(prefix.length));
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

  /**
   * A JSON-serialisable snapshot of every unexpired key and its state, with the fingerprint
   * of the algorithms the store's limiters (every `RateLimiter` and middleware on it, with or
   * without `LimitOperations` in the app) decide them by (take it when the limiters exist):
   * `restore()` in a new store (another process, after a restart) makes every key's next
   * decision equal to what this store would have answered.
   *
   * @example
   * ```ts
   * writeFileSync('limits.json', JSON.stringify(store.dump()));
   * // after the restart, once the limiters are created:
   * store.restore(JSON.parse(readFileSync('limits.json', 'utf8')));
   * ```
   */
  dump(): MemoryStoreSnapshot {
    const now = this.#lastNow;
    // Flat keys first, then each key space's, in the order the spaces were made.
    const spaces = new Map<number, [string | null, MemoryStoreSnapshot['keys']]>([
      [FLAT, [null, []]],
    ]);
    for (const [prefix, space] of this.#spaces) spaces.set(space, [prefix, []]);
    for (const [key, slot] of this.#slots.entries()) {
      const state = this.#stateAt(slot);
      const [name, keys] = spaces.get(this.#slots.spaceOf(slot))!;
      if (expiryOf(state) > now)
        keys.push([name, key, typeof state === 'number' ? state : [...state]]);
    }
    return {
      format: SNAPSHOT_FORMAT,
      takenAt: now,
      fingerprint: keySpacesOf(this),
      keys: [...spaces.values()].flatMap(([, keys]) => keys),
    };
  }

  /**
   * Loads a snapshot from {@link MemoryStore.dump}: its keys and states replace any this
   * store holds under the same names. Create the limiters first: the snapshot is checked
   * against the algorithms and limits they decide their key spaces by.
   *
   * @throws {@link SluiceConfigError} naming `snapshot` when it is not a snapshot, or was
   *   taken under another algorithm or limit for a key prefix this store's limiters use.
   */
  restore(snapshot: MemoryStoreSnapshot): void {
    checkSnapshot(snapshot, (s) => checkFingerprint(s, keySpacesOf(this)));
    if (snapshot.takenAt > this.#lastNow) this.#lastNow = snapshot.takenAt;
    for (const [prefix, key, state] of snapshot.keys) {
      const space = prefix === null ? FLAT : this.space(prefix);
      const slot = this.#slots.find(space, key) ?? this.#insert(space, key, this.#lastNow);
      this.#write(slot, typeof state === 'number' ? state : [...state]);
    }
  }

  /** Drops every key. */
  clear(): void {
    this.#slots.clear();
  }

  /** The state in `slot`, or undefined when there is none or it expired (off the hot path). */
  #liveState(slot: number | undefined, nowMs: number): State | undefined {
    if (slot === undefined) return undefined;
    const state = this.#stateAt(slot);
    return expiryOf(state) <= nowMs ? undefined : state;
  }

  #stateAt(slot: number): State {
    return this.#arrays?.[slot] ?? this.#numbers[slot]!;
  }

  /** Stores `state` at `slot`: a number unboxed in `#numbers`, an array in `#arrays`. */
  #write(slot: number, state: State): void {
    if (typeof state === 'number') {
      this.#numbers[slot] = state;
      const arrays = this.#arrays;
      if (arrays !== undefined && arrays[slot] !== undefined) arrays[slot] = undefined;
    } else {
      if (this.#arrays === undefined) this.#arrays = new Array(this.#numbers.length);
      this.#arrays[slot] = state;
    }
  }

  /**
   * {@link Store.consumeAll}: every request admitted, or none charged. Synchronous, so
   * atomic: peeks each key, then consumes each only if all fit ({@link consumeEach}). A
   * request with a `prefix` is decided in that prefix's key space, as `scope(prefix)` does.
   */
  consumeAll(requests: readonly StoreRequest[], nowMs: number): Decision[] {
    return consumeEach(
      requests.map((r) => r.cost),
      (i, cost) => {
        const r = requests[i]!;
        const space = r.prefix === undefined ? FLAT : this.space(r.prefix);
        return this.consumeIn(space, r.key, r.algorithm, cost, nowMs);
      },
    ) as Decision[];
  }
}
