import type { Decision } from '@sluice/core';
import {
  type Algorithm,
  consumeEach,
  expiryOf,
  type OperationEntry,
  type State,
  type StoreReservation,
  stepAtMost,
} from '@sluice/core/store';
import type { DurableObjectStateLike, DurableObjectStorageLike } from './types.js';
import {
  type AlgorithmSpec,
  algorithmOf,
  type Batch,
  type BatchReply,
  type Operation,
  type Outcome,
  toWire,
} from './wire.js';

/** The most keys one storage call takes (Cloudflare's limit for get, put and delete). */
const STORAGE_CALL_KEYS = 128;
/** States kept in memory before the cache is dropped (storage stays authoritative). */
const MAX_CACHED = 50_000;
/** Ms between sweeps of expired states out of storage. */
export const SWEEP_INTERVAL_MS = 60_000;
/** Ms a state outlives its expiry before a sweep deletes it (clocks of callers may lag). */
const SWEEP_SLACK_MS = 60_000;
/** Keys one sweep reads per page. */
const SWEEP_PAGE = 1000;
/**
 * The start of the storage keys of operator entries (no limiter key starts with NUL): the
 * version of a prefix at `<OPS>v<NUL><prefix>`, each entry at `<OPS>e<NUL><prefix><NUL><id>`.
 */
const OPS = '\u0000ops\u0000';
const versionKey = (prefix: string) => `${OPS}v\u0000${prefix}`;
const entriesStart = (prefix: string) => `${OPS}e\u0000${prefix}\u0000`;

/** The operator entries of one prefix as the object holds them in memory. */
interface OpsSpace {
  version: number;
  entries: Map<string, OperationEntry>;
}

type OpsOperation = Extract<Operation, { p: string }>;
const isOps = (op: Operation): op is OpsOperation => 'p' in op;

/**
 * The Durable Object behind {@link DurableObjectStore}: export it from your Worker and bind
 * it (wrangler.toml `[[durable_objects.bindings]]` with `class_name = "SluiceDurableObject"`
 * and a migration `new_sqlite_classes = ["SluiceDurableObject"]`).
 *
 * Each object holds the keys of one shard. It decides a batch of decisions in one `fetch`:
 * it reads the keys it does not hold in memory from its transactional storage (the input
 * gate keeps other requests out while it reads), runs each decision's algorithm — the
 * same TypeScript `step` / `refund` / `reserve` of `@sluice/core` that `MemoryStore` runs,
 * rebuilt from the algorithm's parameters — synchronously on the in-memory states, and
 * writes what changed to storage before it answers. One object runs one request at a
 * time, so each read-modify-write is atomic: exact under any concurrency. Decisions use
 * the calling Worker's clock (the `nowMs` the limiter gives), as `MemoryStore` does.
 *
 * Expired states are swept out of storage by an alarm every minute while the object holds
 * any. The object named `'<name>:ops:<prefix>'` keeps the operator entries of one limiter
 * prefix (`DurableObjectStore#operations`) and their version, in memory and in storage.
 * Not meant to be called by anything but `DurableObjectStore` (its body is sluice's batch
 * format, which may change between versions: deploy the Worker and the object together, as
 * one script).
 *
 * @example
 * ```ts
 * // worker.ts
 * export { SluiceDurableObject } from '@sluice/cloudflare';
 * ```
 */
export class SluiceDurableObject {
  readonly #storage: DurableObjectStorageLike;
  /** States read or written so far; `undefined`: known absent. Authoritative with storage. */
  readonly #cache = new Map<string, State | undefined>();
  /** Algorithms rebuilt from their wire form, by that form's JSON. */
  readonly #algorithms = new Map<string, Algorithm>();
  /** Keys changed by the current batch: written (a state) or deleted (`undefined`). */
  #dirty = new Map<string, State | undefined>();
  /** Operator entries by prefix, read from storage on first use. */
  readonly #ops = new Map<string, OpsSpace>();
  /** Storage keys of operator entries changed by the current batch (`undefined`: deleted). */
  #opsDirty = new Map<string, OperationEntry | number | undefined>();
  #alarmSet = false;
  /** Batches between the start of their read and the end of their run (see `decide`). */
  #running = 0;

  /**
   * @param ctx - the object's state (Cloudflare passes it): its `storage` is used.
   * @param _env - the Worker's bindings (unused).
   */
  constructor(ctx: DurableObjectStateLike, _env?: unknown) {
    this.#storage = ctx.storage;
  }

  /**
   * Answers one batch from `DurableObjectStore` (POST, JSON): every decision in order.
   * A malformed body is answered 400.
   */
  async fetch(request: Request): Promise<Response> {
    let batch: Batch;
    try {
      batch = (await request.json()) as Batch;
      if (!Array.isArray(batch.ops) || !Array.isArray(batch.algorithms)) throw new Error();
    } catch {
      return new Response('sluice: not a batch from DurableObjectStore', { status: 400 });
    }
    return Response.json(await this.decide(batch));
  }

  /** Decides `batch` (what `fetch` does, without HTTP): one outcome per operation. */
  async decide(batch: Batch): Promise<BatchReply> {
    const algorithms = batch.algorithms.map((spec) => this.#algorithm(spec));
    this.#running++;
    let outcomes: Outcome[];
    try {
      await this.#load(batch.ops);
      // From here to the writes nothing awaits: the batch runs as one step on the states.
      outcomes = batch.ops.map((op) => this.#run(op, algorithms));
    } finally {
      this.#running--;
    }
    // Memory is dropped only when no other batch has read states it has yet to run on.
    if (this.#running === 0 && this.#cache.size > MAX_CACHED) this.#cache.clear();
    await this.#write();
    return { outcomes };
  }

  /** Deletes states expired for over a minute; reschedules itself while any key is held. */
  async alarm(): Promise<void> {
    this.#alarmSet = false;
    const cutoff = Date.now() - SWEEP_SLACK_MS;
    let start: string | undefined;
    let held = 0;
    for (;;) {
      const page = await this.#storage.list({ start, limit: SWEEP_PAGE });
      const expired: string[] = [];
      let last: string | undefined;
      for (const [key, state] of page) {
        last = key;
        if (key.startsWith(OPS)) continue; // operator entries end by their own `until`
        // A batch may have written the key since the page was read: memory is newer.
        const now = this.#cache.has(key) ? this.#cache.get(key) : (state as State);
        if (now === undefined || expiryOf(now) < cutoff) expired.push(key);
        else held++;
      }
      // Every delete issued before anything else runs (a batch cannot slip in between).
      const deletes: Promise<number>[] = [];
      for (const key of expired) this.#cache.delete(key);
      for (let i = 0; i < expired.length; i += STORAGE_CALL_KEYS) {
        deletes.push(this.#storage.delete(expired.slice(i, i + STORAGE_CALL_KEYS)));
      }
      await Promise.all(deletes);
      if (page.size < SWEEP_PAGE || last === undefined) break;
      start = `${last}\u0000`;
    }
    if (held > 0) await this.#schedule();
  }

  #algorithm(spec: AlgorithmSpec): Algorithm {
    const id = JSON.stringify(spec);
    let algorithm = this.#algorithms.get(id);
    if (algorithm === undefined) {
      algorithm = algorithmOf(spec);
      if (this.#algorithms.size >= 1000) this.#algorithms.clear();
      this.#algorithms.set(id, algorithm);
    }
    return algorithm;
  }

  /** Reads into memory the states (and operator entries) of the batch that are not there yet. */
  async #load(ops: readonly Operation[]): Promise<void> {
    const missing = new Set<string>();
    const prefixes = new Set<string>();
    for (const op of ops) {
      if (isOps(op)) {
        if (!this.#ops.has(op.p)) prefixes.add(op.p);
        continue;
      }
      for (const key of op.op === 'all' || op.op === 'reserveAll' ? op.keys : [op.key]) {
        if (!this.#cache.has(key)) missing.add(key);
      }
    }
    const keys = [...missing];
    for (let i = 0; i < keys.length; i += STORAGE_CALL_KEYS) {
      const part = keys.slice(i, i + STORAGE_CALL_KEYS);
      const found = await this.#storage.get(part);
      for (const key of part) {
        // Another batch may have written it while this one read: memory is newer.
        if (!this.#cache.has(key)) this.#cache.set(key, found.get(key) as State | undefined);
      }
    }
    for (const prefix of prefixes) {
      const [version, listed] = await Promise.all([
        this.#storage.get([versionKey(prefix)]),
        this.#storage.list({ prefix: entriesStart(prefix) }),
      ]);
      if (this.#ops.has(prefix)) continue; // another batch read it meanwhile: memory is newer
      const entries = new Map<string, OperationEntry>();
      for (const value of listed.values()) {
        const entry = value as OperationEntry;
        entries.set(entry.id, entry);
      }
      this.#ops.set(prefix, { version: Number(version.get(versionKey(prefix)) ?? 0), entries });
    }
  }

  /** An operation on the operator entries of a prefix (read into memory by `#load`). */
  #runOps(op: OpsOperation): Outcome {
    const space = this.#ops.get(op.p)!;
    switch (op.op) {
      case 'opsLoad':
        // The caller holds this version already: its entries need not cross again.
        if (op.known === space.version) return { v: space.version };
        return { v: space.version, entries: [...space.entries.values()] };
      case 'opsVersion':
        return { v: space.version };
      case 'opsPut':
      case 'opsRemove': {
        const id = op.op === 'opsPut' ? op.entry?.id : op.id;
        if (typeof id !== 'string') throw new TypeError('sluice: not an operator entry');
        // Entries that have ended leave storage with the next entry written, by its writer's
        // clock (`at`), as decisions use the caller's clock; readers drop them by theirs.
        const now = op.op === 'opsPut' ? op.entry.at : Number.NEGATIVE_INFINITY;
        for (const [old, entry] of space.entries) {
          if (entry.until !== null && entry.until <= now) this.#setEntry(op.p, old, undefined);
        }
        this.#setEntry(op.p, id, op.op === 'opsPut' ? op.entry : undefined);
        space.version++;
        this.#opsDirty.set(versionKey(op.p), space.version);
        return { v: space.version };
      }
    }
  }

  #setEntry(prefix: string, id: string, entry: OperationEntry | undefined): void {
    const entries = this.#ops.get(prefix)!.entries;
    if (entry === undefined) entries.delete(id);
    else entries.set(id, entry);
    this.#opsDirty.set(`${entriesStart(prefix)}${id}`, entry);
  }

  #run(op: Operation, algorithms: readonly Algorithm[]): Outcome {
    try {
      if (isOps(op)) return this.#runOps(op);
      switch (op.op) {
        case 'consume':
          return { d: toWire(this.#step(op.key, algorithms[op.a]!, op.cost, op.t)) };
        case 'all':
          return {
            all: (
              consumeEach(op.costs, (i, cost) =>
                this.#step(op.keys[i]!, algorithms[op.a[i]!]!, cost, op.t),
              ) as Decision[]
            ).map(toWire),
          };
        case 'refund':
          return { d: toWire(this.#refund(op, algorithms[op.a]!)) };
        case 'atMost': {
          // core's stepAtMost: the TS grant, as MemoryStore runs it
          const r = stepAtMost(algorithms[op.a]!, this.#live(op.key, op.t), op.t, op.max);
          if (r.state !== undefined) this.#set(op.key, r.state);
          return { d: toWire(r.decision) };
        }
        case 'reserve': {
          const algorithm = algorithms[op.a]!;
          if (typeof algorithm.reserve !== 'function') {
            throw new TypeError(
              `sluice: ${algorithm.description} cannot reserve (a window has no future slot)`,
            );
          }
          const r = algorithm.reserve(this.#live(op.key, op.t), op.t, op.cost, op.maxWait);
          if (r.state !== undefined) this.#set(op.key, r.state);
          return { d: toWire(r.decision), delay: r.delayMs };
        }
        case 'reserveAll':
          return {
            reserved: this.#reserveAll(op, algorithms).map((r) => [toWire(r.decision), r.delayMs]),
          };
        case 'reset':
          this.#set(op.key, undefined);
          return { ok: true };
        default:
          throw new TypeError('sluice: unknown operation');
      }
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * `Store.reserveAll` as `MemoryStore` does it: each part's `reserve` tried on the states
   * without writing; only when all book (a cost 0 part is a peek, in nobody's way) is each
   * booked, in order; a key asked for twice that does not fit twice gives back what was
   * booked. Nothing booked: the parts that would book report their peek with their cost.
   */
  #reserveAll(
    op: Extract<Operation, { op: 'reserveAll' }>,
    algorithms: readonly Algorithm[],
  ): StoreReservation[] {
    const { keys, costs, t, maxWait } = op;
    const parts = op.a.map((i) => algorithms[i]!);
    const trial = parts.map((algorithm, i) => {
      if (typeof algorithm.reserve !== 'function') {
        throw new TypeError(
          `sluice: ${algorithm.description} cannot reserve (a window has no future slot)`,
        );
      }
      return algorithm.reserve(this.#live(keys[i]!, t), t, costs[i]!, maxWait);
    });
    const none = (denied: number, denial?: Decision): StoreReservation[] =>
      parts.map((algorithm, i) => {
        const d = i === denied ? denial! : trial[i]!.decision;
        if (!d.allowed || costs[i] === 0) return { decision: d, delayMs: 0 };
        return {
          decision: { ...this.#step(keys[i]!, algorithm, 0, t), cost: costs[i]! },
          delayMs: 0,
        };
      });
    const fits = (d: Decision, i: number) => d.allowed || costs[i] === 0;
    if (!trial.every((r, i) => fits(r.decision, i))) return none(-1);
    const booked: StoreReservation[] = [];
    for (let i = 0; i < parts.length; i++) {
      const r = parts[i]!.reserve!(this.#live(keys[i]!, t), t, costs[i]!, maxWait);
      if (!fits(r.decision, i)) {
        for (let j = 0; j < i; j++) {
          this.#refund({ op: 'refund', key: keys[j]!, a: 0, cost: costs[j]!, t, at: t }, parts[j]!);
        }
        return none(i, r.decision);
      }
      if (r.state !== undefined) this.#set(keys[i]!, r.state);
      booked.push({ decision: r.decision, delayMs: r.delayMs });
    }
    return booked;
  }

  #step(key: string, algorithm: Algorithm, cost: number, now: number): Decision {
    const r = algorithm.step(this.#live(key, now), now, cost);
    if (r.state !== undefined) this.#set(key, r.state);
    return r.decision;
  }

  #refund(op: Extract<Operation, { op: 'refund' }>, algorithm: Algorithm): Decision {
    if (typeof algorithm.refund !== 'function') {
      throw new TypeError(`sluice: algorithm ${algorithm.description} has no refund`);
    }
    const r = algorithm.refund(this.#live(op.key, op.t), op.t, op.cost, op.at);
    if (r.state !== undefined) this.#set(op.key, r.state ?? undefined);
    return r.decision;
  }

  /** The key's state, or undefined when there is none or it expired (as MemoryStore). */
  #live(key: string, now: number): State | undefined {
    const state = this.#cache.get(key);
    return state === undefined || expiryOf(state) <= now ? undefined : state;
  }

  #set(key: string, state: State | undefined): void {
    this.#cache.set(key, state);
    this.#dirty.set(key, state);
  }

  /** Writes the batch's changes to storage (the answer waits for them: durable when it goes). */
  async #write(): Promise<void> {
    const dirty: Map<string, unknown> = this.#dirty;
    const states = dirty.size;
    if (this.#opsDirty.size > 0) {
      for (const [key, value] of this.#opsDirty) dirty.set(key, value);
      this.#opsDirty = new Map();
    }
    if (dirty.size === 0) return;
    this.#dirty = new Map();
    const writes: Promise<unknown>[] = [];
    let puts: Record<string, unknown> = {};
    let putCount = 0;
    let deletes: string[] = [];
    for (const [key, state] of dirty) {
      if (state === undefined) {
        deletes.push(key);
        if (deletes.length === STORAGE_CALL_KEYS) {
          writes.push(this.#storage.delete(deletes));
          deletes = [];
        }
      } else {
        puts[key] = state;
        if (++putCount === STORAGE_CALL_KEYS) {
          writes.push(this.#storage.put(puts));
          puts = {};
          putCount = 0;
        }
      }
    }
    if (putCount > 0) writes.push(this.#storage.put(puts));
    if (deletes.length > 0) writes.push(this.#storage.delete(deletes));
    if (states > 0 && !this.#alarmSet) writes.push(this.#schedule());
    await Promise.all(writes);
  }

  async #schedule(): Promise<void> {
    this.#alarmSet = true;
    if ((await this.#storage.getAlarm()) === null) {
      await this.#storage.setAlarm(Date.now() + SWEEP_INTERVAL_MS);
    }
  }
}
