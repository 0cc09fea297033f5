import { type Duration, parseDuration } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames } from '../common/known-options.js';
import type { OperationEntry } from './entry.js';

/**
 * What the stores that carry operator entries across processes share (Redis, Postgres,
 * SQLite): their `operations` option, reading stored entries, and the listeners of each
 * prefix.
 */

/** Option `operations` of a store that shares operator entries (`{ syncMs }`). */
export interface OperationsOptions {
  /**
   * How often each process re-checks the version of the operator entries (`LimitOperations`)
   * in the store, **ms** or a duration string: a process that missed a notification (its
   * connection lost) obeys the change within this. Costs one read per prefix per `syncMs`
   * per process, none per decision. Default 5 s; `LimitOperations({ syncMs })` overrides it
   * for its prefix in its process.
   */
  syncMs?: Duration;
}

/**
 * Checks a store's option `operations`: its `syncMs` in whole ms (at least 1), or undefined.
 * `store` names the store in the unknown-option message (`'RedisStore'`).
 *
 * @throws {@link SluiceConfigError} naming `operations` or `operations.syncMs`.
 * @example
 * ```ts
 * const syncMs = parseOperationsOption(options.operations, 'PostgresStore');
 * ```
 */
export function parseOperationsOption(operations: unknown, store: string): number | undefined {
  if (operations === undefined) return undefined;
  if (operations === null || typeof operations !== 'object') {
    throw new SluiceConfigError('operations', operations, 'an object { syncMs? }');
  }
  checkOptionNames(operations, ['syncMs'], `${store}({ operations })`);
  const syncMs = (operations as OperationsOptions).syncMs;
  if (syncMs === undefined) return undefined;
  const ms = parseDuration('operations.syncMs', syncMs);
  if (!Number.isSafeInteger(ms) || ms < 1) {
    throw new SluiceConfigError('operations.syncMs', syncMs, 'a whole number of ms, at least 1');
  }
  return ms;
}

/**
 * The entries among stored `values` (JSON texts, or objects a driver already parsed) that
 * are in force at `now` (ms): unparsable ones (written by hand) are skipped, not thrown, so
 * one bad row never fails every process's load.
 *
 * @example
 * ```ts
 * const entries = entriesInForce(rows.map((r) => r.entry), Date.now());
 * ```
 */
export function entriesInForce(values: Iterable<unknown>, now: number): OperationEntry[] {
  const entries: OperationEntry[] = [];
  for (const value of values) {
    let entry: OperationEntry;
    try {
      entry = (typeof value === 'string' ? JSON.parse(value) : value) as OperationEntry;
    } catch {
      continue;
    }
    if (entry === null || typeof entry !== 'object' || typeof entry.id !== 'string') continue;
    if (entry.until === null || (typeof entry.until === 'number' && entry.until > now)) {
      entries.push(entry);
    }
  }
  return entries;
}

/**
 * The listeners of each prefix of a store's `operations` (`OperationsSync.subscribe`):
 * a store adds them, tells them a version it heard of, and asks which prefixes are heard.
 *
 * @example
 * ```ts
 * subscribe(prefix, onChange) {
 *   const { first, stop } = this.#listeners.add(prefix, onChange);
 *   if (first) void this.#listen(prefix);
 *   return stop;
 * }
 * ```
 */
export class OperationListeners {
  readonly #byPrefix = new Map<string, Set<(version: number) => void>>();

  /**
   * Adds `onChange` for `prefix`; `first`: it is the prefix's first listener; `stop`
   * removes it (and returns whether it was the last).
   */
  add(
    prefix: string,
    onChange: (version: number) => void,
  ): { first: boolean; stop: () => boolean } {
    let set = this.#byPrefix.get(prefix);
    const first = set === undefined || set.size === 0;
    if (set === undefined) {
      set = new Set();
      this.#byPrefix.set(prefix, set);
    }
    set.add(onChange);
    const listeners = set;
    return {
      first,
      stop: () => listeners.delete(onChange) && listeners.size === 0,
    };
  }

  /** Tells every listener of `prefix` the version `version` (ignored when not a number). */
  tell(prefix: string, version: number): void {
    const set = this.#byPrefix.get(prefix);
    if (set === undefined || !Number.isFinite(version)) return;
    for (const listener of [...set]) listener(version);
  }

  /** The prefixes with at least one listener. */
  prefixes(): string[] {
    return [...this.#byPrefix].filter(([, set]) => set.size > 0).map(([prefix]) => prefix);
  }

  /** Removes every listener. */
  clear(): void {
    this.#byPrefix.clear();
  }
}
