/**
 * A fixed-capacity store of integer **slots**, each holding a string key of some **group**
 * in some **key space** (see {@link LruSlots.addGroup}), for the memory store's hot path:
 * one probe of an open-addressing hash table per access ({@link LruSlots.find}), recency
 * kept in typed arrays, no allocation once a key has a slot. The caller keeps per-slot data
 * in its own arrays indexed by slot.
 *
 * The table is chained through typed arrays: a bucket per key or more (`Int32Array`, a power
 * of 2 long) holding its first `slot + 1` (0: none), and each slot the next of its bucket:
 * 8–12 B a key where a `Map<string, number>` took 28–56 B (its three-word entries, grown by
 * doubling). Keys are hashed by a per-store seeded 32-bit hash of their UTF-16 code units
 * and key space, so which keys share a bucket differs per process.
 *
 * Each group has two LRU lists: its **open** keys and its **denied** keys (the last decision
 * on the key was a denial, remembered with the time it ends: {@link LruSlots.deny}).
 *
 * Eviction, when full, is fair between groups, so one group spraying keys evicts its own:
 * - the victim group is the inserting group itself when it holds at least its share
 *   (`capacity / groups holding keys`, the inserting one counted); otherwise a group over
 *   its share (there is one, as the store is full), found by a cursor that stays on it;
 * - in the victim group: the least recently denied key whose denial has ended, else the
 *   least recently used open key, else (every key of the group currently denied) the least
 *   recently denied key.
 *
 * A denied key is thus evicted only when its group holds more than its share and nothing
 * but denied keys. Whether a denial has ended is checked on the head of the denied list
 * only (keys there are in the order they were last denied), so a denied key behind one
 * whose denial ends later stays protected a little longer; never the other way round for
 * the head.
 *
 * Why not `lru-cache`: it costs two map lookups per read-modify-write (get, then set) and
 * has no in-place update; measured on this hot path it was level with
 * rate-limiter-flexible at 100k keys, below our 2x performance floor. Used only by
 * `MemoryStore`.
 */
export class LruSlots {
  readonly capacity: number;
  #count = 0;
  #keys: (string | undefined)[] = [];
  #prev = new Int32Array(0);
  #next = new Int32Array(0);
  /** The list each slot is in: `2 * group` (open) or `2 * group + 1` (denied); -1 if free. */
  #list = new Int32Array(0);
  /**
   * When the denial of a slot in a denied list ends, in whole seconds of the caller's clock,
   * rounded up (clamped to 0..2^32-1): eviction order needs no finer time, and 4 bytes a
   * key instead of 8 keep the memory store under 100 B a key.
   */
  #untilS = new Uint32Array(0);
  /** The key space of each group. */
  readonly #spaces: number[] = [];
  /** The hash table's buckets: the first `slot + 1` of each, 0 for none; a power of 2 long. */
  #table = new Int32Array(16);
  /** The next `slot + 1` in each slot's bucket, 0 for none. */
  #chain = new Int32Array(0);
  /** This store's hash seed. */
  readonly #seed = (Math.random() * 2 ** 32) | 0;
  /** The slot last found: a key asked again costs no hash (checked as any other). */
  #last = 0;
  /** Least recently used slot of each list, or -1. */
  #head = new Int32Array(0);
  /** Most recently used slot of each list, or -1. */
  #tail = new Int32Array(0);
  /**
   * The slot last put at the end of an open list, while it is still there, or -1: the
   * one-key hot path ({@link LruSlots.allow} on it) costs one compare.
   */
  #lastOpen = -1;
  /** Keys in each list. */
  #length = new Int32Array(0);
  /** Groups holding at least one key. */
  #groupsHolding = 0;
  /** Where the search for a group over its share starts (see `#overShare`). */
  #cursor = 0;
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

  /** Number of keys held, over every group. */
  get size(): number {
    return this.#count;
  }

  /** Slots handed out so far: every held slot is below this. */
  get span(): number {
    return this.#used;
  }

  /** Whether `slot` holds a key. */
  holds(slot: number): boolean {
    return this.#keys[slot] !== undefined;
  }

  /**
   * A new group whose keys are in key space `space` (default: the group's own id; several
   * groups may share a space: their keys then must not collide). Returns its id, for
   * {@link LruSlots.insert}.
   */
  addGroup(space?: number): number {
    const group = this.#spaces.length;
    this.#spaces.push(space ?? group);
    if (2 * group + 2 > this.#head.length) {
      const length = Math.max(8, 2 * this.#head.length);
      this.#head = grown(new Int32Array(length).fill(-1), this.#head);
      this.#tail = grown(new Int32Array(length).fill(-1), this.#tail);
      this.#length = grown(new Int32Array(length), this.#length);
    }
    return group;
  }

  /** The slot of `key` in key space `space`, or `undefined`. */
  find(space: number, key: string): number | undefined {
    let slot = this.#last;
    if (this.#keys[slot] === key && this.spaceOf(slot) === space) return slot;
    const table = this.#table;
    slot = table[this.#hash(space, key) & (table.length - 1)]! - 1;
    for (; slot >= 0; slot = this.#chain[slot]! - 1) {
      if (this.#keys[slot] === key && this.spaceOf(slot) === space) {
        this.#last = slot;
        return slot;
      }
    }
  }

  /** The key space of the key in `slot`. */
  spaceOf(slot: number): number {
    return this.#spaces[this.#list[slot]! >> 1]!;
  }

  /** Keys `group` holds. */
  countOf(group: number): number {
    return this.#length[2 * group]! + this.#length[2 * group + 1]!;
  }

  /** Whether `slot` is in its group's denied list. */
  isDenied(slot: number): boolean {
    return (this.#list[slot]! & 1) === 1;
  }

  /** Marks `slot` most recently used, in the list it is in (open or denied). */
  touch(slot: number): void {
    const list = this.#list[slot]!;
    if (slot === this.#tail[list]) return;
    this.#unlink(slot, list);
    this.#link(slot, list);
  }

  /** Marks `slot` most recently used and open (its last decision admitted it). */
  allow(slot: number): void {
    if (slot !== this.#lastOpen) this.#open(slot);
  }

  /**
   * Marks `slot` most recently denied: it is evicted after every open key of its group
   * until `untilMs` (the caller's clock, rounded up to the whole second; see the class comment).
   */
  deny(slot: number, untilMs: number): void {
    // A Uint32Array clamps nothing itself: out-of-range values would wrap.
    this.#untilS[slot] = Math.min(0xffffffff, Math.max(0, Math.ceil(untilMs / 1000)));
    const list = this.#list[slot]!;
    if ((list & 1) === 1) {
      this.touch(slot);
      return;
    }
    this.#unlink(slot, list);
    this.#length[list]!--;
    this.#length[list + 1]!++;
    this.#list[slot] = list + 1;
    this.#link(slot, list + 1);
  }

  /**
   * Adds `key` (not present in the group's key space) as most recently used and open, evicting a
   * key when full (see the class comment; `nowMs` tells which denials have ended).
   */
  insert(group: number, key: string, nowMs: number): number {
    let slot: number;
    if (this.#count >= this.capacity) {
      slot = this.#victim(group, nowMs);
      this.#release(slot);
    } else if (this.#free !== -1) {
      slot = this.#free;
      this.#free = this.#next[slot]!;
    } else {
      if (this.#used === this.#keys.length)
        this.#grow(Math.min(this.capacity, this.#keys.length * 2));
      slot = this.#used++;
    }
    if (this.countOf(group) === 0) this.#groupsHolding++;
    this.#count++;
    this.#keys[slot] = key;
    this.#list[slot] = 2 * group;
    if (this.#count > this.#table.length) this.#rehash(2 * this.#table.length);
    else this.#place(slot);
    this.#length[2 * group]!++;
    this.#link(slot, 2 * group);
    return slot;
  }

  /** Removes the key in `slot`. */
  remove(slot: number): void {
    this.#release(slot);
    this.#next[slot] = this.#free;
    this.#free = slot;
  }

  /** Every (key, slot) held, in slot order. */
  *entries(): IterableIterator<[string, number]> {
    for (let slot = 0; slot < this.#used; slot++) {
      const key = this.#keys[slot];
      if (key !== undefined) yield [key, slot];
    }
  }

  /** Removes every key. */
  clear(): void {
    for (const [, slot] of [...this.entries()]) this.remove(slot);
  }

  /** {@link LruSlots.allow} off its fast path: moves `slot` to the end of its open list. */
  #open(slot: number): void {
    const list = this.#list[slot]!;
    if ((list & 1) === 0) {
      if (slot === this.#tail[list]) return;
      this.#unlink(slot, list);
      this.#link(slot, list);
    } else {
      this.#unlink(slot, list);
      this.#length[list]!--;
      this.#length[list - 1]!++;
      this.#list[slot] = list - 1;
      this.#link(slot, list - 1);
    }
  }

  /** The slot to evict for an insert into `group` (the store is full). */
  #victim(group: number, nowMs: number): number {
    const held = this.countOf(group);
    const groups = this.#groupsHolding + (held === 0 ? 1 : 0);
    const from = held > 0 && held * groups >= this.capacity ? group : this.#overShare(groups);
    const denied = this.#head[2 * from + 1]!;
    if (denied !== -1 && this.#untilS[denied]! * 1000 <= nowMs) return denied;
    const open = this.#head[2 * from]!;
    return open !== -1 ? open : denied;
  }

  /**
   * A group holding more than its share (`capacity / groups`); the search starts at the
   * last one found, so repeated evictions cost O(1) while it stays over its share. One
   * exists whenever the inserting group is under its share of a full store.
   */
  #overShare(groups: number): number {
    const total = this.#spaces.length;
    let group = this.#cursor;
    let largest = group;
    for (let i = 0; i < total; i++) {
      const held = this.countOf(group);
      if (held * groups > this.capacity) {
        this.#cursor = group;
        return group;
      }
      if (held > this.countOf(largest)) largest = group;
      group = group + 1 === total ? 0 : group + 1;
    }
    return largest;
  }

  #release(slot: number): void {
    this.#onRelease(slot);
    const list = this.#list[slot]!;
    const group = list >> 1;
    this.#unindex(slot);
    this.#count--;
    this.#keys[slot] = undefined;
    this.#unlink(slot, list);
    this.#length[list]!--;
    this.#list[slot] = -1;
    if (this.countOf(group) === 0) this.#groupsHolding--;
  }

  /** The hash of `key` in `space`: FNV-1a from the seed and space, then a final mix. */
  #hash(space: number, key: string): number {
    let h = this.#seed ^ space;
    // perf: h * 0x01000193 mod 2^32 as h * 0x193 (exact in a double) + h << 24, not
    // Math.imul: in a vm context (jest) each read of the global Math is an interceptor call,
    // which made a key's hash 27 times slower there
    for (let i = 0; i < key.length; i++) {
      h ^= key.charCodeAt(i);
      h = (h * 0x193 + (h << 24)) | 0;
    }
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    return h ^ (h >>> 13);
  }

  /** The bucket of the key in `slot`. */
  #bucket(slot: number): number {
    return this.#hash(this.spaceOf(slot), this.#keys[slot]!) & (this.#table.length - 1);
  }

  /** Enters the key in `slot` first in its bucket. */
  #place(slot: number): void {
    const bucket = this.#bucket(slot);
    this.#chain[slot] = this.#table[bucket]!;
    this.#table[bucket] = slot + 1;
  }

  /** A table of `length` buckets holding every key. */
  #rehash(length: number): void {
    this.#table = new Int32Array(length);
    for (let slot = 0; slot < this.#used; slot++) if (this.holds(slot)) this.#place(slot);
  }

  /** Takes the key in `slot` out of its bucket. */
  #unindex(slot: number): void {
    const bucket = this.#bucket(slot);
    let prev = this.#table[bucket]! - 1;
    if (prev === slot) this.#table[bucket] = this.#chain[slot]!;
    else {
      while (this.#chain[prev] !== slot + 1) prev = this.#chain[prev]! - 1;
      this.#chain[prev] = this.#chain[slot]!;
    }
  }

  /** Takes `slot` out of `list` (its length is the caller's). */
  #unlink(slot: number, list: number): void {
    if (slot === this.#lastOpen) this.#lastOpen = -1;
    const p = this.#prev[slot]!;
    const n = this.#next[slot]!;
    if (p === -1) this.#head[list] = n;
    else this.#next[p] = n;
    if (n === -1) this.#tail[list] = p;
    else this.#prev[n] = p;
  }

  /** Puts `slot` at the most recently used end of `list` (its length is the caller's). */
  #link(slot: number, list: number): void {
    const tail = this.#tail[list]!;
    this.#prev[slot] = tail;
    this.#next[slot] = -1;
    if (tail === -1) this.#head[list] = slot;
    else this.#next[tail] = slot;
    this.#tail[list] = slot;
    if ((list & 1) === 0) this.#lastOpen = slot;
  }

  #grow(length: number): void {
    this.#prev = grown(new Int32Array(length), this.#prev);
    this.#next = grown(new Int32Array(length), this.#next);
    this.#chain = grown(new Int32Array(length), this.#chain);
    this.#list = grown(new Int32Array(length).fill(-1), this.#list);
    this.#untilS = grown(new Uint32Array(length), this.#untilS);
    this.#keys.length = length;
    this.#onGrow(length);
  }
}

/** `to`, holding `from`'s values at its start. */
function grown<T extends Int32Array | Uint32Array>(to: T, from: T): T {
  to.set(from);
  return to;
}
