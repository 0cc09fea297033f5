import type { Algorithm, Decision } from '@sluice/core';
import { type DeadlineQueue, type Pending, StoreTimeoutError } from './deadline-queue.js';
import { EXPIRED, type LuaTwin } from './lua-common.js';
import type { LuaScript, RedisClient } from './lua-script.js';
import { keySlot } from './redis-key.js';
import { ServerClocks } from './server-clock.js';

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
  /** The keys' Cluster slot (0 on a standalone Redis). */
  readonly slot: number;
  /** The server the batch was sent to ('' on a standalone Redis; undefined: unknown). */
  server: string | undefined;
  sent = false;

  constructor(twin: LuaTwin, algorithm: Algorithm, slot: number) {
    this.twin = twin;
    this.params = algorithm.params;
    this.slot = slot;
  }
}

/**
 * The master serving `slot` in an ioredis Cluster's slot table (`host:port`), or undefined
 * before the table is loaded.
 */
export function masterOf(client: RedisClient, slot: number): string | undefined {
  return (client as { slots?: (string[] | undefined)[] }).slots?.[slot]?.[0];
}

/**
 * Coalesces the decisions asked for in one turn of the event loop into few script calls:
 * calls are grouped by algorithm kind and params (so the params are sent once per batch)
 * and, on a Cluster, by slot, so every batch's keys share a slot;
 * a group is sent when it reaches {@link MAX_BATCH} calls or at `setImmediate`, whichever
 * comes first. A group of one runs the single-key script. In a batch each key is decided
 * by the same Lua function as alone, in call order, all in one atomic script.
 *
 * Each script call carries the deadline of its earliest call, on the server's clock (see
 * {@link ServerClocks}): a script that reaches Redis after its callers timed out (Redis
 * stalled, a reply held in a queue) does nothing and answers {@link EXPIRED}, so a call
 * already answered by the limiter's `onStoreError` policy is never charged late.
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
  readonly #clocks: ServerClocks;

  /**
   * @param cluster - whether `client` is a `Cluster`: batches are then grouped by slot.
   * @param clocks - the servers' clock offsets, shared with the store's other callers.
   */
  constructor(
    client: RedisClient,
    cluster: boolean,
    deadlines: DeadlineQueue,
    down: () => Error | undefined,
    clocks: ServerClocks = new ServerClocks(),
  ) {
    this.#clocks = clocks;
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
      batch = new Batch(twin, algorithm, slot);
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
    const server = this.#cluster ? masterOf(this.#client, batch.slot) : '';
    batch.server = server;
    // Every call of a batch was tracked within one turn of the event loop: the first one's
    // deadline is the earliest.
    const deadline =
      server === undefined ? '' : this.#clocks.deadlineOn(server, batch.calls[0]!.deadline);
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
        argv.push(deadline);
      } else {
        // KEYS, ...params, (now, cost) x n
        script = batch.twin.batch;
        for (let i = 0; i < params.length; i++) argv.push(params[i]!);
        const pairs = batch.pairs;
        for (let i = 0; i < pairs.length; i++) argv.push(pairs[i]!);
        argv.push(deadline);
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
    if (reply[0] === EXPIRED) {
      // Redis ran the script past its deadline and did nothing: a timeout.
      if (batch.server !== undefined) this.#clocks.sample(batch.server, reply[1]);
      this.#fail(batch, new StoreTimeoutError(this.#deadlines.timeoutMs));
      return;
    }
    if (batch.server !== undefined) this.#clocks.sample(batch.server, reply[calls.length * width]);
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
