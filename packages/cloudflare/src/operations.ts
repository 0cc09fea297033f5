import {
  entriesInForce,
  type OperationEntry,
  OperationListeners,
  type OperationsSync,
} from '@sluice/core/store';
import type { ShardBatches } from './shard-batches.js';
import type { Operation, Outcome } from './wire.js';

/**
 * `DurableObjectStore#operations`: the operator entries (`LimitOperations`) of each limiter
 * prefix in one Durable Object of their own, `idFromName('<name>:ops:<prefix>')`, with a
 * version that every write bumps. Every isolate on the namespace reads that object: the
 * entries once, then again every `syncMs` (on Workers, where a request's timers end with
 * it, the first decision after each `syncMs` reloads them in its own request; the object
 * answers the version alone when it is the one the isolate holds). This store's own
 * limiters hear of its writes at once. Nothing is sent per decision: limiters decide from
 * the snapshot the core keeps.
 *
 * One object per prefix, apart from the shards' objects: the reads of every isolate every
 * `syncMs` never queue behind decisions, prefixes do not share an object's throughput, and
 * a load is one storage list of that prefix's entries.
 */
export class DurableObjectOperations implements OperationsSync {
  readonly shared = true;
  /** How often each isolate re-reads the entries' version, ms (option `operations.syncMs`). */
  readonly syncMs: number | undefined;
  readonly #batches: ShardBatches;
  readonly #listeners = new OperationListeners();
  /** The version and stored entries last loaded per prefix (a reload of it crosses as `v` alone). */
  readonly #loaded = new Map<string, { version: number; entries: readonly unknown[] }>();

  constructor(batches: ShardBatches, syncMs: number | undefined) {
    this.#batches = batches;
    this.syncMs = syncMs;
  }

  async load(prefix: string): Promise<{ version: number; entries: OperationEntry[] }> {
    const known = this.#loaded.get(prefix);
    const reply = await this.#send({ op: 'opsLoad', p: prefix, known: known?.version });
    let loaded = known;
    if (reply.entries !== undefined || loaded === undefined || loaded.version !== reply.v) {
      loaded = { version: reply.v, entries: reply.entries ?? [] };
      this.#loaded.set(prefix, loaded);
    }
    // Ended entries are kept: readers drop them by their own clock (the limiter's, the
    // operations'), which need not be this isolate's.
    return {
      version: loaded.version,
      entries: entriesInForce(loaded.entries, Number.NEGATIVE_INFINITY),
    };
  }

  async put(prefix: string, entry: OperationEntry): Promise<number> {
    return this.#changed(prefix, await this.#send({ op: 'opsPut', p: prefix, entry }));
  }

  async remove(prefix: string, id: string): Promise<number> {
    return this.#changed(prefix, await this.#send({ op: 'opsRemove', p: prefix, id }));
  }

  /** One small fetch to the prefix's object: once per prefix per `syncMs` in each isolate. */
  async version(prefix: string): Promise<number> {
    return (await this.#send({ op: 'opsVersion', p: prefix })).v;
  }

  /** This store's writes are told at once; other isolates' by the version check. */
  subscribe(prefix: string, onChange: (version: number) => void): () => void {
    const { stop } = this.#listeners.add(prefix, onChange);
    return () => void stop();
  }

  #changed(prefix: string, reply: { v: number }): number {
    this.#listeners.tell(prefix, reply.v);
    return reply.v;
  }

  async #send(op: Operation): Promise<{ v: number; entries?: unknown[] }> {
    const outcome: Outcome = await this.#batches.send(`ops:${(op as { p: string }).p}`, () => op);
    if ('error' in outcome) throw new Error(outcome.error);
    if (!('v' in outcome) || typeof outcome.v !== 'number') {
      throw new Error('sluice: the Durable Object of the operator entries answered no version');
    }
    return outcome;
  }
}
