import type { State } from '../algorithms/algorithm.js';
import { SluiceConfigError } from '../common/errors.js';

/**
 * What `MemoryStore#dump()` gives and `restore()` takes: JSON-serialisable (`JSON.stringify`
 * it to a file, `JSON.parse` it back).
 */
export interface MemoryStoreSnapshot {
  /** `'sluice.memory-store/2'`. */
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

/**
 * The snapshot format. `/2`: protocol limits (GraphQL, ws, tRPC) on an algorithm other than
 * GCRA keep their keys under the algorithm's tag, as HTTP limits do (`sl@fw:<name>:`, see
 * keys/limit-key-prefix.ts); a `/1` snapshot holds them under the old keys, which no limiter
 * reads any more: restoring it would start those limits afresh without a word, so it is
 * refused (docs/migrating/upgrading.md).
 */
export const SNAPSHOT_FORMAT = 'sluice.memory-store/2';

/** The format before protocol keys carried their algorithm's tag. */
const KEYS_BEFORE_TAGS = 'sluice.memory-store/1';

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
  if ((s as { format?: unknown } | null)?.format === KEYS_BEFORE_TAGS) {
    throw new SluiceConfigError('snapshot', snapshot, '', {
      // perf: short, in every bundle with a MemoryStore (docs/migrating/upgrading.md says more).
      message: `sluice: MemoryStore#restore() refused a ${KEYS_BEFORE_TAGS} snapshot (older keys): start without it, take a new one`,
    });
  }
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
