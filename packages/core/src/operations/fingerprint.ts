import { SluiceConfigError } from '../common/errors.js';
import type { MemoryStoreSnapshot } from '../stores/memory-snapshot.js';
import type { OperationsSnapshot } from './snapshot.js';

// MemoryStore#dump()'s fingerprint: the algorithms of the limiters registered on the store,
// which only operations snapshots know (snapshot.ts hands these to the registry when it
// loads). Without snapshots a store has no registered limiter, so a bundle without them
// leaves this out.

/**
 * The key prefixes of every limiter of `snapshots`, with their algorithms, sorted, without
 * repeats.
 */
function keySpaces(snapshots: Iterable<OperationsSnapshot>): [string, string][] {
  const seen = new Map<string, [string, string]>();
  for (const snapshot of snapshots) {
    for (const limiter of snapshot.limiters()) {
      for (const [prefix, algorithm] of limiter.keySpaces()) {
        seen.set(`${prefix}\n${algorithm}`, [prefix, algorithm]);
      }
    }
  }
  return [...seen.values()].sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
}

/**
 * Refuses `snapshot` when a prefix it holds is decided by another algorithm or limit
 * in `here` (the restoring store's {@link keySpaces}).
 * @throws {@link SluiceConfigError} naming `snapshot`.
 */
function check(snapshot: MemoryStoreSnapshot, here: readonly (readonly [string, string])[]): void {
  const mine = new Map<string, Set<string>>();
  for (const [prefix, algorithm] of here) {
    const set = mine.get(prefix) ?? new Set<string>();
    set.add(algorithm);
    mine.set(prefix, set);
  }
  for (const entry of snapshot.fingerprint) {
    const ours = mine.get(entry[0]);
    if (ours !== undefined && !ours.has(entry[1])) {
      throw new SluiceConfigError(
        'snapshot',
        snapshot,
        'a snapshot taken under the same algorithms and limits',
        {
          message:
            `sluice: MemoryStore#restore() refused the snapshot: its keys under ${JSON.stringify(entry[0])} were decided by ${entry[1]}, ` +
            `but this store's limiters decide them by ${[...ours].join(', ')}; restoring would misread every key's state ` +
            '(take the snapshot again under the new limits, or restore without it)',
        },
      );
    }
  }
}

/** What snapshot.ts provides to `MemoryStore` through the registry. */
export const FINGERPRINTS = { keySpaces, check };

/** The type of {@link FINGERPRINTS}. */
export type Fingerprints = typeof FINGERPRINTS;
