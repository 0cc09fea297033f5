import { processGlobal } from '../common/process-global.js';

/**
 * A limiter as `MemoryStore#dump()`'s fingerprint reads it: its key prefixes and the
 * algorithm (description) deciding each.
 */
export interface KeySpaceOwner {
  keySpaces(): readonly (readonly [prefix: string, algorithm: string])[];
}

/**
 * The limiters on each store (`RateLimiter`s, HTTP limiters' static plans), held weakly:
 * what `MemoryStore#dump()` fingerprints and `restore()` checks, whether or not
 * `LimitOperations` is in the bundle (ESM and CommonJS builds alike).
 */
const owners = processGlobal(
  'keySpaceOwners',
  () => new WeakMap<object, Set<WeakRef<KeySpaceOwner>>>(),
);

/** Registers `owner`, a limiter on `store` (which must keep `owner` alive as long as it lives). */
export function trackKeySpaces(store: object, owner: KeySpaceOwner): void {
  let set = owners.get(store);
  if (set === undefined) {
    set = new Set();
    owners.set(store, set);
  }
  set.add(new WeakRef(owner));
  // Limiters made and dropped by the thousand (one per request) leave no trail of refs.
  if (set.size % 1024 === 0) keySpacesOf(store);
}

/**
 * The key prefixes of every live limiter on `store`, with their algorithms, sorted, without
 * repeats: `MemoryStore#dump()`'s fingerprint.
 */
export function keySpacesOf(store: object): [string, string][] {
  const seen = new Map<string, [string, string]>();
  const set = owners.get(store);
  for (const ref of set ?? []) {
    const owner = ref.deref();
    if (owner === undefined) {
      set!.delete(ref);
      continue;
    }
    for (const [prefix, algorithm] of owner.keySpaces()) {
      seen.set(`${prefix}\n${algorithm}`, [prefix, algorithm]);
    }
  }
  return [...seen.values()].sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
}
