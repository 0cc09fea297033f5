/**
 * The eviction groups of a `MemoryStore`'s flat keys (the full keys given to
 * `MemoryStore.consume`): a key's group is its text up to the second `:` (`sl:login:…`
 * → `sl:login:`, the limiter prefix and limit name of an HTTP limiter's key, which a
 * request cannot choose); keys with fewer than two `:` share the group `''`. At most
 * {@link MAX_FLAT_GROUPS} groups: the keys of any further name go to `''` too.
 */
export class FlatGroups {
  readonly #groups = new Map<string, number>();
  readonly #add: () => number;
  /** The last name found (see `of`), `''` for none, and its group. */
  #lastName = '';
  #lastGroup = 0;

  /** @param add - makes a new group and returns its id (`LruSlots.addGroup`). */
  constructor(add: () => number) {
    this.#add = add;
    this.#groups.set('', add());
  }

  /** The group of `key`, made on first use. */
  of(key: string): number {
    // Sprays come through one limit: a key starting with the last name found (two `:`, the
    // last at its end) has that name too, without slicing or hashing.
    const last = this.#lastName;
    if (last !== '' && key.startsWith(last)) return this.#lastGroup;
    const first = key.indexOf(':');
    const second = first === -1 ? -1 : key.indexOf(':', first + 1);
    const name = second === -1 ? '' : key.slice(0, second + 1);
    let group = this.#groups.get(name);
    if (group === undefined) {
      if (this.#groups.size >= MAX_FLAT_GROUPS) return this.#groups.get('')!;
      group = this.#add();
      this.#groups.set(name, group);
    }
    this.#lastName = name;
    this.#lastGroup = group;
    return group;
  }
}

/** The most flat-key groups a store makes (names are few: limiter prefixes and limit names). */
export const MAX_FLAT_GROUPS = 1024;
