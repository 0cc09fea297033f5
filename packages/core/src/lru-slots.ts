/**
 * A fixed-capacity LRU over integer **slots**, each holding a string key of some key space
 * (a `Map<string, slot>` owned by the caller), for the memory store's
 * hot path: one `Map` lookup per access, recency kept in typed arrays, no allocation once a
 * key has a slot. The caller keeps per-slot data in its own arrays indexed by slot.
 *
 * Why not `lru-cache`: it costs two map lookups per read-modify-write (get, then set) and
 * has no in-place update; measured on this hot path it was level with
 * rate-limiter-flexible at 100k keys, below the 2x floor of DESIGN §8. Used only by
 * `MemoryStore`.
 */
export class LruSlots {
  readonly capacity: number;
  #count = 0;
  #keys: (string | undefined)[] = [];
  /** The key space (map) each slot's key lives in. */
  #spaces: (Map<string, number> | undefined)[] = [];
  #prev = new Int32Array(0);
  #next = new Int32Array(0);
  /** Least recently used slot, or -1. */
  #head = -1;
  /** Most recently used slot, or -1. */
  #tail = -1;
  /** Slots handed out so far (slots >= this are unused). */
  #used = 0;
  /** A free slot list threaded through `#next`, or -1. */
  #free = -1;
  /** Called with a slot about to be reused for another key (evicted or removed). */
  readonly #onRelease: (slot: number) => void;
  /** Called when the slot arrays grow, with the new length. */
  readonly #onGrow: (length: number) => void;

  constructor(
    capacity: number,
    onGrow: (length: number) => void,
    onRelease: (slot: number) => void,
  ) {
    this.capacity = capacity;
    this.#onGrow = onGrow;
    this.#onRelease = onRelease;
    this.#grow(Math.min(capacity, 1024));
  }

  /** Number of keys held, over every key space. */
  get size(): number {
    return this.#count;
  }

  /** Marks `slot` most recently used. */
  touch(slot: number): void {
    if (slot === this.#tail) return;
    const prev = this.#prev;
    const next = this.#next;
    const p = prev[slot]!;
    const n = next[slot]!;
    if (p === -1) this.#head = n;
    else next[p] = n;
    prev[n] = p; // n !== -1 since slot is not the tail
    prev[slot] = this.#tail;
    next[slot] = -1;
    next[this.#tail] = slot;
    this.#tail = slot;
  }

  /**
   * Adds `key` (not present in `space`) as most recently used, evicting the least recently
   * used key of any space when full. `space` maps keys to slots; the caller looks keys up in
   * it directly (one map lookup per access).
   */
  insert(space: Map<string, number>, key: string): number {
    let slot: number;
    if (this.#count >= this.capacity) {
      slot = this.#head;
      this.#release(slot);
    } else if (this.#free !== -1) {
      slot = this.#free;
      this.#free = this.#next[slot]!;
    } else {
      if (this.#used === this.#keys.length)
        this.#grow(Math.min(this.capacity, this.#keys.length * 2));
      slot = this.#used++;
    }
    space.set(key, slot);
    this.#count++;
    this.#keys[slot] = key;
    this.#spaces[slot] = space;
    this.#prev[slot] = this.#tail;
    this.#next[slot] = -1;
    if (this.#tail === -1) this.#head = slot;
    else this.#next[this.#tail] = slot;
    this.#tail = slot;
    return slot;
  }

  /** Removes the key in `slot`. */
  remove(slot: number): void {
    this.#release(slot);
    this.#next[slot] = this.#free;
    this.#free = slot;
  }

  /** Every (key, slot) held, least recently used first. */
  *entries(): IterableIterator<[string, number]> {
    for (let slot = this.#head; slot !== -1; slot = this.#next[slot]!) {
      yield [this.#keys[slot]!, slot];
    }
  }

  /** Removes every key. */
  clear(): void {
    for (const [, slot] of [...this.entries()]) this.remove(slot);
  }

  #release(slot: number): void {
    this.#onRelease(slot);
    this.#spaces[slot]!.delete(this.#keys[slot]!);
    this.#count--;
    this.#keys[slot] = undefined;
    this.#spaces[slot] = undefined;
    const p = this.#prev[slot]!;
    const n = this.#next[slot]!;
    if (p === -1) this.#head = n;
    else this.#next[p] = n;
    if (n === -1) this.#tail = p;
    else this.#prev[n] = p;
  }

  #grow(length: number): void {
    const prev = new Int32Array(length);
    const next = new Int32Array(length);
    prev.set(this.#prev);
    next.set(this.#next);
    this.#prev = prev;
    this.#next = next;
    this.#keys.length = length;
    this.#spaces.length = length;
    this.#onGrow(length);
  }
}
