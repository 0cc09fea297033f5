import type { Algorithm, Decision } from '@sluice/core';
import type { DeadlineQueue, Pending } from './deadline-queue.js';
import type { LuaTwin } from './lua-common.js';
import type { LuaScript, RedisClient } from './lua-script.js';
import { keySlot } from './redis-key.js';

/** The most decisions sent in one script call. */
export const MAX_BATCH = 128;

interface Call extends Pending {
  resolve: (decision: Decision) => void;
  cost: number;
  /** The call's own algorithm: it decodes the call's decision (e.g. its `limit`). */
  algorithm: Algorithm;
}

/**
 * What the script of a call depends on: its algorithm's kind (which twin) and params (its
 * arguments), e.g. `gcra:1000,1,60`. Calls with equal keys share batches, even from
 * different Algorithm objects (two limiters with the same settings). Params never contain
 * `:`, so no two different (kind, params) share a key. Cached per Algorithm object, whose
 * `kind` and `params` are read-only.
 */
const groupKeys = new WeakMap<Algorithm, string>();

function groupKey(algorithm: Algorithm): string {
  let key = groupKeys.get(algorithm);
  if (key === undefined) {
    key = `${algorithm.kind}:${algorithm.params}`;
    groupKeys.set(algorithm, key);
  }
  return key;
}

/**
 * Calls of one kind and params (one limiter's settings, or several limiters' equal ones) on
 * keys of one slot, in call order.
 */
class Batch {
  readonly twin: LuaTwin;
  /** Every call's algorithm params (the first call's; the same group key). */
  readonly params: readonly number[];
  readonly keys: string[] = [];
  /** (now, cost) per call. */
  readonly pairs: (string | number)[] = [];
  readonly calls: Call[] = [];
  sent = false;

  constructor(twin: LuaTwin, algorithm: Algorithm) {
    this.twin = twin;
    this.params = algorithm.params;
  }
}

/**
 * Coalesces the decisions asked for in one turn of the event loop into few script calls:
 * calls are grouped by algorithm kind and params (so the params are sent once per batch)
 * and, on a Cluster, by slot, so every batch's keys share a slot;
 * a group is sent when it reaches {@link MAX_BATCH} calls or at `setImmediate`, whichever
 * comes first. A group of one runs the single-key script. In a batch each key is decided
 * by the same Lua function as alone, in call order, all in one atomic script.
 */
export class Coalescer {
  readonly #client: RedisClient;
  readonly #deadlines: DeadlineQueue;
  readonly #cluster: boolean;
  readonly #down: () => Error | undefined;
  /** Open batches by group key (standalone), or by group key then slot (Cluster). */
  #open = new Map<string, Batch>();
  #openBySlot = new Map<string, Map<number, Batch>>();
  /** Open batches in the order they were opened. */
  #pending: Batch[] = [];

  /** @param cluster - whether `client` is a `Cluster`: batches are then grouped by slot. */
  constructor(
    client: RedisClient,
    cluster: boolean,
    deadlines: DeadlineQueue,
    down: () => Error | undefined,
  ) {
    this.#client = client;
    this.#deadlines = deadlines;
    this.#cluster = cluster;
    this.#down = down;
  }

  /** Queues one decision; `now` is '' for Redis TIME. Settles within the deadline queue's timeout. */
  add(
    twin: LuaTwin,
    key: string,
    now: number | '',
    cost: number,
    algorithm: Algorithm,
  ): Promise<Decision> {
    let batch: Batch | undefined;
    let bySlot: Map<number, Batch> | undefined;
    let slot = 0;
    const group = groupKey(algorithm);
    if (this.#cluster) {
      slot = keySlot(key);
      bySlot = this.#openBySlot.get(group);
      if (bySlot === undefined) {
        bySlot = new Map();
        this.#openBySlot.set(group, bySlot);
      }
      batch = bySlot.get(slot);
    } else {
      batch = this.#open.get(group);
    }
    if (batch === undefined) {
      batch = new Batch(twin, algorithm);
      if (bySlot !== undefined) bySlot.set(slot, batch);
      else this.#open.set(group, batch);
      if (this.#pending.push(batch) === 1) setImmediate(this.#flushAll);
    }
    batch.keys.push(key);
    batch.pairs.push(now, cost);
    let call!: Call;
    const promise = new Promise<Decision>((resolve, reject) => {
      call = { deadline: 0, reject, settled: false, resolve, cost, algorithm };
    });
    batch.calls.push(call);
    this.#deadlines.track(call);
    if (batch.calls.length >= MAX_BATCH) {
      // Full: sent now; the next call of this group opens a new batch.
      if (bySlot !== undefined) bySlot.delete(slot);
      else this.#open.delete(group);
      this.#send(batch);
    }
    return promise;
  }

  /** Sends every open batch now (e.g. before a `DEL` that must come after them). */
  flush(): void {
    if (this.#pending.length === 0) return;
    const pending = this.#pending;
    this.#pending = [];
    this.#open.clear();
    this.#openBySlot.clear();
    for (const batch of pending) if (!batch.sent) this.#send(batch);
  }

  readonly #flushAll = (): void => {
    this.flush();
  };

  #send(batch: Batch): void {
    batch.sent = true;
    const down = this.#down();
    if (down !== undefined) {
      this.#fail(batch, down);
      return;
    }
    const n = batch.calls.length;
    let request: Promise<unknown>;
    try {
      const params = batch.params;
      const argv: (string | number)[] = batch.keys;
      let script: LuaScript;
      if (n === 1) {
        // KEYS[1], now, cost, ...params
        script = batch.twin.single;
        argv.push(batch.pairs[0]!, batch.pairs[1]!);
        for (let i = 0; i < params.length; i++) argv.push(params[i]!);
      } else {
        // KEYS, ...params, (now, cost) x n
        script = batch.twin.batch;
        for (let i = 0; i < params.length; i++) argv.push(params[i]!);
        const pairs = batch.pairs;
        for (let i = 0; i < pairs.length; i++) argv.push(pairs[i]!);
      }
      request = script.runMany(this.#client, n, argv);
    } catch (error) {
      // E.g. an algorithm whose params are no array, or a client that throws: this batch
      // fails; nothing is thrown into add() or the setImmediate flush, which goes on.
      this.#fail(batch, error);
      return;
    }
    request.then(
      (reply) => this.#settle(batch, reply as unknown[]),
      (error: unknown) => this.#fail(batch, error),
    );
  }

  #settle(batch: Batch, reply: unknown[]): void {
    const { calls, twin } = batch;
    const width = twin.width;
    for (let i = 0, at = 0; i < calls.length; i++, at += width) {
      const call = calls[i]!;
      if (call.settled) continue; // timed out: its late answer is ignored
      call.settled = true;
      if (reply[at] === -1) {
        call.reject(new Error(String(reply[at + 1])));
        continue;
      }
      try {
        call.resolve(twin.decode(reply as number[], at, call.algorithm, call.cost));
      } catch (error) {
        call.reject(error as Error);
      }
    }
  }

  #fail(batch: Batch, error: unknown): void {
    const reason = error instanceof Error ? error : new Error(String(error));
    for (const call of batch.calls) {
      if (call.settled) continue;
      call.settled = true;
      call.reject(reason);
    }
  }
}
