import type { Decision } from '@sluice/core';
import { type Algorithm, keyErrorReason, StoreKeyError, withChargeTime } from '@sluice/core/store';
import { scriptClient } from './clients/client.js';
import { type DeadlineQueue, type Pending, StoreTimeoutError } from './deadline-queue.js';
import { EXPIRED, type LuaTwin } from './lua-common.js';
import type { LuaScript, RedisClient } from './lua-script.js';
import { keySlot } from './redis-key.js';
import { ServerClocks } from './server-clock.js';

/** The most decisions sent in one script call. */
export const MAX_BATCH = 128;

interface Call {
  resolve: (decision: Decision) => void;
  reject: (error: Error) => void;
  settled: boolean;
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
 * keys of one slot, in call order. Watched by the deadline queue as one entry: its calls
 * were all made within one turn of the event loop and are sent together, so its deadline
 * (taken when it is sent) is theirs, and on timeout every call not yet answered is rejected.
 */
class Batch implements Pending {
  readonly twin: LuaTwin;
  readonly algorithm: Algorithm;
  /**
   * The script's argv: the keys, in call order (params, times and costs are appended when
   * the batch is sent).
   */
  readonly argv: (string | number)[] = [];
  /** (now, cost) per call, in call order, once two calls differ; until then only the first's. */
  pairs: (string | number)[] | undefined;
  readonly now: number | '';
  readonly cost: number;
  readonly calls: Call[] = [];
  /** The keys' Cluster slot (0 on a standalone Redis). */
  readonly slot: number;
  /** The server the batch was sent to ('' on a standalone Redis; undefined: unknown). */
  server: string | undefined;
  sent = false;
  deadline = 0;
  /** Every call answered (or the batch timed out). */
  settled = false;

  constructor(twin: LuaTwin, algorithm: Algorithm, slot: number, now: number | '', cost: number) {
    this.twin = twin;
    this.algorithm = algorithm;
    this.slot = slot;
    this.now = now;
    this.cost = cost;
  }

  /** Adds a call for `key` at (`now`, `cost`). */
  push(key: string, now: number | '', cost: number, call: Call): void {
    const n = this.calls.length;
    this.argv.push(key);
    this.calls.push(call);
    if (this.pairs !== undefined) this.pairs.push(now, cost);
    else if (now !== this.now || cost !== this.cost) {
      // The first call that differs: every call's (now, cost) from here on.
      const pairs: (string | number)[] = [];
      for (let i = 0; i < n; i++) pairs.push(this.now, this.cost);
      pairs.push(now, cost);
      this.pairs = pairs;
    }
  }

  /** Rejects every call not yet answered (a timeout, or a failed send). */
  reject(error: Error): void {
    for (const call of this.calls) {
      if (call.settled) continue;
      call.settled = true;
      call.reject(error);
    }
    this.done();
  }

  /**
   * Every call answered: lets go of the calls and arguments (the deadline queue may hold
   * the batch until its deadline; its calls' promises must not live that long).
   */
  done(): void {
    this.settled = true;
    this.calls.length = 0;
    this.argv.length = 0;
    this.pairs = undefined;
  }
}

/**
 * The master serving `slot` in a Cluster client's slot table (`host:port`), or undefined
 * before the table is loaded.
 */
export function masterOf(client: RedisClient, slot: number): string | undefined {
  return scriptClient(client)?.masterOf(slot);
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
  /** The batch the last call joined (standalone), while open: the common case, no lookup. */
  #last: Batch | undefined;
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
    let batch = this.#last;
    // perf: consecutive calls of one limiter join the same open batch without a Map lookup.
    if (batch === undefined || batch.algorithm !== algorithm || batch.sent) {
      batch = this.#cluster
        ? this.#openInSlot(twin, key, now, cost, algorithm)
        : this.#openBatch(twin, now, cost, algorithm);
    }
    let call!: Call;
    const promise = new Promise<Decision>((resolve, reject) => {
      call = { resolve, reject, settled: false, cost, algorithm };
    });
    batch.push(key, now, cost, call);
    if (batch.calls.length >= MAX_BATCH) {
      // Full: sent now; the next call of this group opens a new batch.
      if (this.#cluster) this.#openBySlot.get(groupKey(algorithm))?.delete(batch.slot);
      else this.#open.delete(groupKey(algorithm));
      this.#send(batch);
    }
    return promise;
  }

  /** The open batch of `algorithm`'s group on a standalone Redis, or a new one. */
  #openBatch(twin: LuaTwin, now: number | '', cost: number, algorithm: Algorithm): Batch {
    const group = groupKey(algorithm);
    let batch = this.#open.get(group);
    if (batch === undefined) {
      batch = this.#newBatch(twin, algorithm, 0, now, cost);
      this.#open.set(group, batch);
    }
    this.#last = batch;
    return batch;
  }

  /** The open batch of `algorithm`'s group and `key`'s slot on a Cluster, or a new one. */
  #openInSlot(
    twin: LuaTwin,
    key: string,
    now: number | '',
    cost: number,
    algorithm: Algorithm,
  ): Batch {
    const group = groupKey(algorithm);
    const slot = keySlot(key);
    let bySlot = this.#openBySlot.get(group);
    if (bySlot === undefined) {
      bySlot = new Map();
      this.#openBySlot.set(group, bySlot);
    }
    let batch = bySlot.get(slot);
    if (batch === undefined) {
      batch = this.#newBatch(twin, algorithm, slot, now, cost);
      bySlot.set(slot, batch);
    }
    return batch;
  }

  #newBatch(
    twin: LuaTwin,
    algorithm: Algorithm,
    slot: number,
    now: number | '',
    cost: number,
  ): Batch {
    const batch = new Batch(twin, algorithm, slot, now, cost);
    if (this.#pending.push(batch) === 1) setImmediate(this.#flushAll);
    return batch;
  }

  /** Sends every open batch now (e.g. before a `DEL` that must come after them). */
  flush(): void {
    if (this.#pending.length === 0) return;
    const pending = this.#pending;
    this.#pending = [];
    this.#open.clear();
    this.#openBySlot.clear();
    this.#last = undefined;
    for (const batch of pending) if (!batch.sent) this.#send(batch);
  }

  readonly #flushAll = (): void => {
    this.flush();
  };

  #send(batch: Batch): void {
    batch.sent = true;
    const down = this.#down();
    if (down !== undefined) {
      batch.reject(down);
      return;
    }
    const n = batch.calls.length;
    // The deadline runs from the send, not from the first call: a batch held back because
    // this process's event loop was blocked has not waited on Redis.
    this.#deadlines.track(batch);
    const server = this.#cluster ? masterOf(this.#client, batch.slot) : '';
    batch.server = server;
    const deadline = server === undefined ? '' : this.#clocks.deadlineOn(server, batch.deadline);
    let request: Promise<unknown>;
    try {
      const params = batch.algorithm.params;
      const argv = batch.argv;
      let script: LuaScript;
      if (n === 1) {
        // KEYS[1], now, cost, ...params, deadline
        script = batch.twin.single;
        argv.push(batch.now, batch.cost);
        for (let i = 0; i < params.length; i++) argv.push(params[i]!);
      } else {
        // KEYS, ...params, (now, cost) x n or one (now, cost) for all, deadline
        script = batch.twin.batch;
        for (let i = 0; i < params.length; i++) argv.push(params[i]!);
        const pairs = batch.pairs;
        if (pairs === undefined) argv.push(batch.now, batch.cost);
        else for (let i = 0; i < pairs.length; i++) argv.push(pairs[i]!);
      }
      argv.push(deadline);
      request = script.runMany(this.#client, n, argv, true);
    } catch (error) {
      // E.g. an algorithm whose params are no array, or a client that throws: this batch
      // fails; nothing is thrown into add() or the setImmediate flush, which goes on.
      batch.reject(asError(error));
      return;
    }
    request.then(
      (reply) => this.#settle(batch, reply as unknown[]),
      (error: unknown) => batch.reject(asError(error)),
    );
  }

  #settle(batch: Batch, reply: unknown[]): void {
    const { calls, twin } = batch;
    const width = twin.replyWidth;
    if (reply[0] === EXPIRED) {
      // Redis ran the script past its deadline and did nothing: a timeout.
      if (batch.server !== undefined) this.#clocks.sample(batch.server, reply[1]);
      batch.reject(new StoreTimeoutError(this.#deadlines.timeoutMs));
      return;
    }
    const clock = reply[calls.length * width] as number;
    if (batch.server !== undefined) this.#clocks.sample(batch.server, clock);
    // On Redis TIME ('' as now), a charge records when it was decided, for its refund.
    const serverTime = batch.now === '';
    for (let i = 0, at = 0; i < calls.length; i++, at += width) {
      const call = calls[i]!;
      if (call.settled) continue; // timed out: its late answer is ignored
      call.settled = true;
      const first = reply[at];
      if (typeof first !== 'number') {
        // The key's function raised an error (its message stands where its values would):
        // this key's state is unreadable; the store is fine.
        call.reject(new StoreKeyError(call.algorithm.description, keyErrorReason(String(first))));
        continue;
      }
      try {
        const decision = twin.decodeReply(reply as number[], at, call.algorithm, call.cost);
        call.resolve(
          serverTime && decision.allowed && call.cost > 0
            ? withChargeTime(decision, clock)
            : decision,
        );
      } catch (error) {
        call.reject(asError(error));
      }
    }
    batch.done();
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
