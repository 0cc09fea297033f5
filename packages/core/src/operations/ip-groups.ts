import { ipSubject } from '../http/request/keys.js';

/**
 * `{ ip }` entries, matched by the request's own group: an entry names an address and
 * applies to every request whose group (its limiter's `ipv6Subnet`, possibly per request)
 * holds that address. `ban({ ip: '2001:db8:1:2::5' })` reaches all of `2001:db8:1::/56` for
 * a request grouped by /56, `2001:db8:1:2::/64` for one grouped by /64, and that address
 * alone at /128. An IPv4 address (an IPv4-mapped one folded) is its own group. An entry
 * written by an earlier version names a group (`'2001:db8:1:2::/64'`): it applies to a
 * request inside it, or whose wider group holds it.
 *
 * perf: a decision makes one map lookup for its prefix length, plus one per coarser
 * precision of such earlier entries; each length's map is built on its first request.
 */
export class IpEntries<T> {
  /** IPv4 addresses (and any text without a colon): exact. */
  readonly #exact = new Map<string, T>();
  /** IPv6 entries: the address (a network's for an earlier entry), its precision, value. */
  readonly #v6: [address: string, bits: number, value: T][] = [];
  /** Earlier entries' groups by precision (< 128): the group text, as written. */
  readonly #coarse = new Map<number, Map<string, T>>();
  /** By a request's prefix length: the entries as fine or finer, grouped at that length. */
  readonly #byLength = new Map<number, Map<string, T>>();
  /** The map {@link IpEntries.match} used last, and its length (-1: none). */
  #lastLength = -1;
  #last: Map<string, T> | undefined = undefined;
  /** What two entries falling into one group answer (the first, or an override's merged list). */
  readonly #merge: (a: T, b: T) => T;

  constructor(merge: (a: T, b: T) => T = (a) => a) {
    this.#merge = merge;
  }

  get size(): number {
    return this.#exact.size + this.#v6.length;
  }

  /** Files `value` under an entry's normalised `{ ip }` text. */
  add(ip: string, value: T): void {
    if (!ip.includes(':')) {
      const had = this.#exact.get(ip);
      this.#exact.set(ip, had === undefined ? value : this.#merge(had, value));
      return;
    }
    const slash = ip.indexOf('/');
    const bits = slash < 0 ? 128 : Number(ip.slice(slash + 1));
    if (!(bits >= 1 && bits <= 128)) return; // written by something else: ignored
    const address = slash < 0 ? ip : ip.slice(0, slash);
    this.#v6.push([address, bits, value]);
    if (bits < 128) {
      let groups = this.#coarse.get(bits);
      if (groups === undefined) {
        groups = new Map();
        this.#coarse.set(bits, groups);
      }
      const had = groups.get(ip);
      groups.set(ip, had === undefined ? value : this.#merge(had, value));
    }
    this.#byLength.clear();
    this.#lastLength = -1;
  }

  /**
   * The value of an entry for the client `ip` (raw text), grouped by `bits()` (asked only
   * for an IPv6 client), or `undefined`.
   */
  match(ip: string, bits: () => number): T | undefined {
    const group = ipSubject(ip, 64);
    if (!group.includes(':')) return this.#exact.get(group);
    if (this.#v6.length === 0) return undefined;
    const length = bits();
    const found = this.#at(length).get(length === 64 ? group : ipSubject(ip, length));
    if (found !== undefined || this.#coarse.size === 0) return found;
    for (const [precision, groups] of this.#coarse) {
      if (precision >= length) continue;
      const hit = groups.get(ipSubject(ip, precision));
      if (hit !== undefined) return hit;
    }
    return undefined;
  }

  /** The entries at least as fine as `length`, by their group at `length` (built once). */
  #at(length: number): Map<string, T> {
    // perf: most decisions ask the length the last one asked
    if (length === this.#lastLength) return this.#last!;
    let groups = this.#byLength.get(length);
    if (groups !== undefined) {
      this.#lastLength = length;
      this.#last = groups;
      return groups;
    }
    groups = new Map();
    for (const [address, precision, value] of this.#v6) {
      if (precision < length) continue;
      const group = ipSubject(address, length);
      const had = groups.get(group);
      groups.set(group, had === undefined ? value : this.#merge(had, value));
    }
    this.#byLength.set(length, groups);
    this.#lastLength = length;
    this.#last = groups;
    return groups;
  }
}
