import type { OperationEntry, OperationsSync } from './entry.js';

/**
 * {@link OperationsSync} of `MemoryStore`: entries kept in this process (`shared: false`),
 * one version counter per prefix, subscribers told synchronously on each change.
 */
export class MemoryOperationsSync implements OperationsSync {
  readonly shared = false;
  readonly #prefixes = new Map<
    string,
    { version: number; entries: Map<string, OperationEntry>; listeners: Set<(v: number) => void> }
  >();

  #of(prefix: string) {
    let space = this.#prefixes.get(prefix);
    if (space === undefined) {
      space = { version: 0, entries: new Map(), listeners: new Set() };
      this.#prefixes.set(prefix, space);
    }
    return space;
  }

  #changed(prefix: string): number {
    const space = this.#of(prefix);
    const version = ++space.version;
    for (const listener of [...space.listeners]) listener(version);
    return version;
  }

  async load(prefix: string): Promise<{ version: number; entries: OperationEntry[] }> {
    const space = this.#of(prefix);
    return { version: space.version, entries: [...space.entries.values()].map(copy) };
  }

  async put(prefix: string, entry: OperationEntry): Promise<number> {
    this.#of(prefix).entries.set(entry.id, copy(entry));
    return this.#changed(prefix);
  }

  async remove(prefix: string, id: string): Promise<number> {
    this.#of(prefix).entries.delete(id);
    return this.#changed(prefix);
  }

  async version(prefix: string): Promise<number> {
    return this.#of(prefix).version;
  }

  subscribe(prefix: string, onChange: (version: number) => void): () => void {
    const listeners = this.#of(prefix).listeners;
    listeners.add(onChange);
    return () => listeners.delete(onChange);
  }

  /**
   * Synchronous twin of {@link MemoryOperationsSync.load}: a snapshot on this store is
   * current from the first decision (no promise to wait for).
   */
  loadNow(prefix: string): { version: number; entries: OperationEntry[] } {
    const space = this.#of(prefix);
    return { version: space.version, entries: [...space.entries.values()].map(copy) };
  }
}

/** Entries are stored as JSON would keep them: the caller's object is never shared. */
function copy(entry: OperationEntry): OperationEntry {
  return JSON.parse(JSON.stringify(entry)) as OperationEntry;
}
