import type { State } from '../algorithms/algorithm.js';
import { SluiceConfigError } from '../common/errors.js';

/**
 * What `MemoryStore#dump()` gives and `restore()` takes: JSON-serialisable (`JSON.stringify`
 * it to a file, `JSON.parse` it back).
 */
export interface MemoryStoreSnapshot {
  /** `'sluice.memory-store/1'`. */
  format: typeof SNAPSHOT_FORMAT;
  /** The latest time the store had decided at, ms since the Unix epoch. */
  takenAt: number;
  /**
   * The algorithm of each key space of the limiters on the store when it was taken:
   * `[key prefix, algorithm description]` (`['sl:api:', 'gcra(…)']`). `restore()` refuses a
   * snapshot whose prefix is decided by another algorithm or limit in the restoring store.
   */
  fingerprint: [prefix: string, algorithm: string][];
  /** Every unexpired key: its key space's prefix (`null`: a full key), its key, its state. */
  keys: [space: string | null, key: string, state: State][];
}

export const SNAPSHOT_FORMAT = 'sluice.memory-store/1';

/**
 * Refuses `snapshot` when a prefix it holds is decided by another algorithm or limit in
 * `here` (the restoring store's limiters, key-spaces.ts).
 * @throws {@link SluiceConfigError} naming `snapshot`.
 */
export function checkFingerprint(
  snapshot: MemoryStoreSnapshot,
  here: readonly (readonly [string, string])[],
): void {
  const mine = new Map<string, Set<string>>();
  for (const [prefix, algorithm] of here) {
    const set = mine.get(prefix) ?? new Set<string>();
    set.add(algorithm);
    mine.set(prefix, set);
  }
  for (const [prefix, algorithm] of snapshot.fingerprint) {
    const ours = mine.get(prefix);
    if (ours !== undefined && !ours.has(algorithm)) {
      throw new SluiceConfigError('snapshot', snapshot, '', {
        message:
          `sluice: MemoryStore#restore() refused the snapshot: its keys under ${JSON.stringify(prefix)} were decided by ${algorithm}, ` +
          `this store's limiters by ${[...ours].join(', ')} (take it again under the new limits)`,
      });
    }
  }
}

/**
 * Checks that `snapshot` is one (its format, its fingerprint's and keys' shapes); between
 * the two, `compare` checks its fingerprint against the restoring store's limiters.
 * @throws {@link SluiceConfigError} naming `snapshot` when it is not one.
 */
export function checkSnapshot(
  snapshot: unknown,
  compare: (snapshot: MemoryStoreSnapshot) => void,
): asserts snapshot is MemoryStoreSnapshot {
  const s = snapshot as MemoryStoreSnapshot;
  if (
    s === null ||
    typeof s !== 'object' ||
    s.format !== SNAPSHOT_FORMAT ||
    !Array.isArray(s.keys) ||
    !Array.isArray(s.fingerprint) ||
    typeof s.takenAt !== 'number'
  ) {
    throw new SluiceConfigError(
      'snapshot',
      snapshot,
      `a snapshot from MemoryStore#dump() (format ${SNAPSHOT_FORMAT})`,
    );
  }
  for (const entry of s.fingerprint) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') {
      throw new SluiceConfigError('snapshot', snapshot, 'a snapshot with a valid fingerprint');
    }
  }
  compare(s);
  for (const key of s.keys) {
    const state = Array.isArray(key) ? key[2] : undefined;
    if (
      !Array.isArray(key) ||
      (key[0] !== null && typeof key[0] !== 'string') ||
      typeof key[1] !== 'string' ||
      !(
        typeof state === 'number' ||
        (Array.isArray(state) && state.every((n) => typeof n === 'number'))
      )
    ) {
      throw new SluiceConfigError(
        'snapshot',
        snapshot,
        'a snapshot whose keys are [space, key, state]',
      );
    }
  }
}
