import type { CidrSet } from './cidr.js';
import { IpEntries } from './ip-groups.js';
import { exactOf, PatternSet } from './patterns.js';

/**
 * Entries of one kind (or overrides), by subject type, as a snapshot compiles them: IPs by
 * the request's group ({@link IpEntries}), exact users and keys in maps, CIDRs in a
 * {@link CidrSet}, wildcard user and key subjects in a {@link PatternSet} each (patterns.ts).
 */
export class Lists<T> {
  readonly ip: IpEntries<T>;
  readonly user = new Map<string, T>();
  readonly key = new Map<string, T>();
  cidrs: CidrSet<T> | undefined = undefined;
  /** Wildcard user subjects; `undefined` while there is none. */
  userPatterns: PatternSet<T> | undefined = undefined;
  /** Wildcard key subjects; `undefined` while there is none. */
  keyPatterns: PatternSet<T> | undefined = undefined;
  /** Patterns filed, by type and text, until {@link Lists.freeze}. */
  #pending: [Map<string, T>, Map<string, T>] | undefined;

  /** @param merge - what two IP entries falling into one request group answer. */
  constructor(merge?: (a: T, b: T) => T) {
    this.ip = new IpEntries(merge);
  }

  get empty(): boolean {
    return (
      this.ip.size === 0 &&
      this.user.size === 0 &&
      this.key.size === 0 &&
      this.cidrs === undefined &&
      this.userPatterns === undefined &&
      this.keyPatterns === undefined
    );
  }

  /**
   * Files a value under a user or key subject's `text`: an exact one (`\*` read as a star)
   * in its map, a pattern for {@link Lists.freeze}; `make` gets the value already filed
   * under the same subject.
   */
  file(type: 'user' | 'key', text: string, make: (existing: T | undefined) => T): void {
    const exact = exactOf(text);
    if (exact !== undefined) {
      this[type].set(exact, make(this[type].get(exact)));
      return;
    }
    if (this.#pending === undefined) this.#pending = [new Map(), new Map()];
    const pending = this.#pending[type === 'user' ? 0 : 1];
    pending.set(text, make(pending.get(text)));
  }

  /** Compiles the patterns filed, after `each` of their values; once, after the last file. */
  freeze(each?: (value: T) => void): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    const compile = (byText: Map<string, T>): PatternSet<T> | undefined => {
      if (byText.size === 0) return undefined;
      const set = new PatternSet<T>();
      for (const [text, value] of byText) {
        each?.(value);
        set.add(text, value);
      }
      set.freeze();
      return set;
    };
    this.userPatterns = compile(pending[0]);
    this.keyPatterns = compile(pending[1]);
  }
}
