import type { Algorithm, Decision } from '@sluice/core';
import type { DeadlineQueue, Pending } from './deadline-queue.js';
import type { LuaScript, RedisClient } from './lua-script.js';
import { keySlot } from './redis-key.js';

/** One algorithm's Lua twin as the store runs it: its two scripts and its reply decoder. */
export interface ScriptTwin {
  /** Index of this twin among the store's twins (part of the batch grouping). */
  readonly id: number;
  /** One key per call (`LuaTwin.single`). */
  readonly single: LuaScript;
  /** Many keys per call (`LuaTwin.batch`). */
  readonly batch: LuaScript;
  /** Reply values per decision. */
  readonly width: number;
  decode(reply: unknown[], at: number, algorithm: Algorithm, cost: number): Decision;
}

/** The most decisions sent in one script call. */
export const MAX_BATCH = 128;

interface Call extends Pending {
  resolve: (decision: Decision) => void;
  algorithm: Algorithm;
  cost: number;
}

class Batch {
  readonly twin: ScriptTwin;
  readonly keys: string[] = [];
  /** (now, cost, ...params) per call, in call order. */
  readonly args: (string | number)[] = [];
  readonly calls: Call[] = [];

  constructor(twin: ScriptTwin) {
    this.twin = twin;
  }
}

/**
 * Coalesces the decisions asked for in one turn of the event loop into few script calls:
 * calls are grouped by twin and (on a Cluster) by slot, so every batch's keys share a slot;
 * a group is sent when it reaches {@link MAX_BATCH} calls or at `setImmediate`, whichever
 * comes first. A group of one runs the single-key script. In a batch each key is decided
 * by the same Lua function as alone, in call order, all in one atomic script.
 */
export class Coalescer {
  readonly #client: RedisClient;
  readonly #deadlines: DeadlineQueue;
  readonly #cluster: boolean;
  readonly #down: () => Error | undefined;
  #open = new Map<number, Batch>();
  #scheduled = false;

  constructor(client: RedisClient, deadlines: DeadlineQueue, down: () => Error | undefined) {
    this.#client = client;
    this.#deadlines = deadlines;
    this.#cluster = (client as { isCluster?: unknown }).isCluster === true;
    this.#down = down;
  }

  /** Queues one decision; `now` is '' for Redis TIME. Settles within the deadline queue's timeout. */
  add(
    twin: ScriptTwin,
    key: string,
    now: number | '',
    cost: number,
    algorithm: Algorithm,
  ): Promise<Decision> {
    const group = this.#cluster ? twin.id * 16384 + keySlot(key) : twin.id;
    let batch = this.#open.get(group);
    if (batch === undefined) {
      batch = new Batch(twin);
      this.#open.set(group, batch);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#flushAll);
      }
    }
    batch.keys.push(key);
    const args = batch.args;
    args.push(now, cost);
    const params = algorithm.params;
    for (let i = 0; i < params.length; i++) args.push(params[i]!);
    let call!: Call;
    const promise = new Promise<Decision>((resolve, reject) => {
      call = { deadline: 0, reject, settled: false, resolve, algorithm, cost };
    });
    batch.calls.push(call);
    this.#deadlines.track(call);
    if (batch.calls.length >= MAX_BATCH) {
      this.#open.delete(group);
      this.#send(batch);
    }
    return promise;
  }

  /** Sends every open batch now (e.g. before a `DEL` that must come after them). */
  flush(): void {
    if (this.#open.size === 0) return;
    const open = this.#open;
    this.#open = new Map();
    for (const batch of open.values()) this.#send(batch);
  }

  readonly #flushAll = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  #send(batch: Batch): void {
    const down = this.#down();
    if (down !== undefined) {
      this.#fail(batch, down);
      return;
    }
    const n = batch.calls.length;
    const script = n === 1 ? batch.twin.single : batch.twin.batch;
    const argv = batch.keys;
    const args = batch.args;
    for (let i = 0; i < args.length; i++) argv.push(args[i] as string);
    script.runMany(this.#client, n, argv).then(
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
        call.resolve(twin.decode(reply, at, call.algorithm, call.cost));
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
