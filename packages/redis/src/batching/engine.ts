import { StoreTimeoutError } from '@sluice/core/store';
import type { ScriptClient } from '../clients/client.js';
import { ISOLATED_REQUESTS } from '../runtime/isolation.js';
import { nextTurn } from '../runtime/timers.js';
import { EXPIRED } from '../twins/lua-common.js';
import type { LuaScript } from '../twins/lua-script.js';
import type { DeadlineQueue, Pending } from './deadline-queue.js';
import type { ServerClocks } from './server-clock.js';

/** The most keys sent in one script call. */
export const MAX_BATCH = 128;

/** One caller's request in a batch (one key, or a request's keys of one slot). */
export interface Call<A> {
  resolve: (answer: A) => void;
  reject: (error: Error) => void;
  /** Answered (or given up on): a late answer is ignored, or handed to `late`. */
  finished: boolean;
  /** How many keys it sends. */
  keys: number;
}

/**
 * A status read off a reply for one call: `FAILED` when its function raised an error (its
 * message stands where its first value would). Multi-key scripts reply one status per call
 * (1 charged, 0 not, -1 failed); single-key scripts have none (0 unless failed).
 */
const FAILED = -1;

/**
 * Calls of one batch key (an algorithm's settings, a script mode) on keys of one slot, in
 * call order, sent in one script call. Watched by the deadline queue as one entry: its
 * calls were made within one turn of the event loop and are sent together, so its deadline
 * (taken when it is sent) is theirs, and on timeout every call not yet answered is rejected.
 */
export class Batch<C extends Call<never>> implements Pending {
  readonly group: string | number;
  /** The keys' Cluster slot (0 on a standalone Redis). */
  readonly slot: number;
  readonly calls: C[] = [];
  /** The keys of its calls. */
  keys = 0;
  /**
   * What the script is told to give up at: the batch's own deadline ('send'), a request's
   * (a `performance.now()` ms), or nothing (undefined).
   */
  cutoff: 'send' | number | undefined = 'send';
  /** Whether a breaker opening for its node rejects it at once (`DeadlineQueue.failSent`). */
  abandonable = true;
  /** The node it was sent to, for its clock ('' on a standalone Redis; undefined: unknown). */
  node: string | undefined;
  /** The node when `abandonable` (what `failSent` reads). */
  server: string | undefined;
  /** Redis `TIME` of its reply, ms. */
  clock = 0;
  sent = false;
  deadline = 0;
  /** Every call answered (or the batch timed out). */
  finished = false;
  /** Told when the batch fails unanswered (timed out, given up, failed): the client's `lost`. */
  onLost: ((node: string | undefined) => void) | undefined;

  constructor(group: string | number, slot: number) {
    this.group = group;
    this.slot = slot;
  }

  /** Rejects every call not yet answered (a timeout, a failed send, a node given up). */
  reject(error: Error): void {
    this.onLost?.(this.node);
    this.finished = true;
    for (const call of this.calls) {
      if (call.finished) continue;
      call.finished = true;
      call.reject(error);
    }
  }

  /** Its reply was read (or its script call failed): lets go of the calls. */
  done(): void {
    // perf: the deadline queue may hold the batch until its deadline; its calls' promises
    // must not live (and be promoted out of V8's young generation) that long.
    this.finished = true;
    this.calls.length = 0;
  }
}

/** What every batching path shares (see {@link BatchEngine}). */
export interface EngineOptions {
  /** The store's client, resolved once (`scriptClient`). */
  client: ScriptClient;
  /** Whether `client` is a `Cluster`: batches are then per slot. */
  cluster: boolean;
  deadlines: DeadlineQueue;
  /** The servers' clock offsets, shared by every path of a store. */
  clocks: ServerClocks;
  /** Whether replies carry one status per call after the values (multi-key scripts). */
  statuses: boolean;
  /** Bulk strings in replies stay Buffers (only error texts in ours; see `LuaScript.runMany`). */
  raw?: boolean;
  /** An error when the client knows its connection is lost: a batch then fails unsent. */
  down?: () => Error | undefined;
  /** Keeps the script calls in flight, for {@link BatchEngine.idle}. */
  inflight?: boolean;
  /**
   * Every call sent at once in a script call of its own, no batch across calls: where one
   * request's I/O must not settle another's (Cloudflare Workers). Default: the runtime's
   * (`ISOLATED_REQUESTS`).
   */
  isolated?: boolean;
}

/**
 * The batching of one kind of script call: calls asked for in one turn of the event loop
 * are collected per batch key and (on a Cluster) per slot, and a batch is sent when it
 * reaches {@link MAX_BATCH} keys or at `setImmediate`, whichever comes first, in the order
 * the batches were opened. The engine owns the script call (`EVALSHA`, `EVAL` on
 * `NOSCRIPT`), the deadline (from the send, on the server's clock: a script that reaches
 * Redis after its callers timed out answers {@link EXPIRED} and does nothing), clock
 * sampling, and finishing each call: its answer, its key's error, or a timeout. A path
 * (subclass) keeps its argument layout (`script`, `args`) and its decoding (`decode`).
 */
export abstract class BatchEngine<A, C extends Call<A>, B extends Batch<C>> {
  protected readonly client: ScriptClient;
  protected readonly cluster: boolean;
  protected readonly deadlines: DeadlineQueue;
  readonly #clocks: ServerClocks;
  readonly #statuses: boolean;
  readonly #raw: boolean;
  readonly #down: (() => Error | undefined) | undefined;
  /** Script calls sent and not yet answered (with option `inflight`). */
  readonly #inflight: Set<Promise<void>> | undefined;
  /** Open batches by group (standalone), or by group then slot (Cluster). */
  #open = new Map<string | number, B>();
  #openBySlot = new Map<string | number, Map<number, B>>();
  /** Batches opened since the last flush, in the order they were opened. */
  #pending: B[] = [];
  /** The client's `lost`, on a client that has one: told of each failed batch. */
  readonly #lost: ((node: string | undefined) => void) | undefined;
  /** Each call is sent alone, at once (option `isolated`). */
  readonly #isolated: boolean;

  constructor(options: EngineOptions) {
    this.client = options.client;
    this.cluster = options.cluster;
    this.deadlines = options.deadlines;
    this.#clocks = options.clocks;
    this.#statuses = options.statuses;
    this.#raw = options.raw ?? false;
    this.#down = options.down;
    this.#inflight = options.inflight ? new Set() : undefined;
    this.#isolated = options.isolated ?? ISOLATED_REQUESTS;
    const client = options.client;
    this.#lost = client.lost !== undefined ? (node) => client.lost!(node) : undefined;
  }

  /** The script `batch` runs. */
  protected abstract script(batch: B): LuaScript;
  /** The script's argv: `batch.keys` keys, then the arguments with `deadline` (on Redis TIME). */
  protected abstract args(batch: B, deadline: number | ''): (string | number)[];
  /** Reply values per key of `batch`. */
  protected abstract stride(batch: B): number;
  /** A call's answer from its values at `at` (`batch.clock` is the reply's TIME). */
  protected abstract decode(batch: B, call: C, reply: unknown[], at: number, status: unknown): A;
  /** The rejection of a call whose function raised `message`. */
  protected abstract keyError(call: C, message: string): Error;

  /** A reply for a call its caller gave up on (timed out): ignored unless overridden. */
  protected late(_batch: B, _call: C, _reply: unknown[], _at: number, _status: unknown): void {}

  /** The script answered {@link EXPIRED}: it did nothing (its calls then time out). */
  protected expired(_batch: B): void {}

  /** The open batch of `group` in `slot`, if any. */
  protected openBatch(group: string | number, slot: number): B | undefined {
    return this.cluster ? this.#openBySlot.get(group)?.get(slot) : this.#open.get(group);
  }

  /** Opens `batch` (none open for its group and slot): sent at the next flush. */
  protected open(batch: B): B {
    // Isolated: the batch is sent by the `join` that follows, never shared with a later call.
    if (this.#isolated) return batch;
    if (this.cluster) {
      let bySlot = this.#openBySlot.get(batch.group);
      if (bySlot === undefined) {
        bySlot = new Map();
        this.#openBySlot.set(batch.group, bySlot);
      }
      bySlot.set(batch.slot, batch);
    } else {
      this.#open.set(batch.group, batch);
    }
    if (this.#pending.push(batch) === 1) nextTurn(this.#flushAll);
    return batch;
  }

  /** Adds `call` to an open `batch`; a batch that is full is sent now. */
  protected join(batch: B, call: C): void {
    batch.calls.push(call);
    batch.keys += call.keys;
    if (this.#isolated) {
      this.#send(batch);
    } else if (batch.keys >= MAX_BATCH) {
      // Full: sent now; the next call of its group and slot opens a new batch.
      if (this.cluster) this.#openBySlot.get(batch.group)?.delete(batch.slot);
      else this.#open.delete(batch.group);
      this.#send(batch);
    }
  }

  /** Sends `batch` with its one `call` now, in a script call of its own. */
  protected sendAlone(batch: B, call: C): void {
    batch.calls.push(call);
    batch.keys += call.keys;
    this.#send(batch);
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

  /** Resolves once every script call sent so far (and those they lead to) answered. */
  async idle(): Promise<void> {
    this.flush();
    const inflight = this.#inflight;
    while (inflight !== undefined && inflight.size > 0) {
      await Promise.allSettled([...inflight]);
      this.flush();
    }
  }

  #send(batch: B): void {
    batch.sent = true;
    const down = this.#down?.();
    if (down !== undefined) {
      batch.reject(down);
      batch.done();
      return;
    }
    // The deadline runs from the send, not from the first call: a batch held back because
    // this process's event loop was blocked has not waited on Redis.
    this.deadlines.track(batch);
    const node = this.cluster ? this.client.masterOf(batch.slot) : '';
    batch.node = node;
    batch.onLost = this.#lost;
    if (batch.abandonable) batch.server = node;
    const cutoff = batch.cutoff === 'send' ? batch.deadline : batch.cutoff;
    const deadline =
      cutoff === undefined || node === undefined ? '' : this.#clocks.deadlineOn(node, cutoff);
    let request: Promise<unknown>;
    try {
      request = this.script(batch).runMany(
        this.client,
        batch.keys,
        this.args(batch, deadline),
        this.#raw,
      );
    } catch (error) {
      // E.g. an algorithm whose params are no array, or a client that throws: this batch
      // fails; nothing is thrown into the caller or the setImmediate flush, which goes on.
      this.#fail(batch, error);
      return;
    }
    const answered = request.then(
      (reply) => this.#finish(batch, reply as unknown[]),
      (error: unknown) => this.#fail(batch, error),
    );
    const inflight = this.#inflight;
    if (inflight !== undefined) {
      inflight.add(answered);
      answered.then(() => inflight.delete(answered));
    }
  }

  #fail(batch: B, error: unknown): void {
    batch.reject(asError(error));
    batch.done();
  }

  #finish(batch: B, reply: unknown[]): void {
    const node = batch.node;
    if (reply[0] === EXPIRED) {
      // Redis ran the script past its deadline and did nothing: a timeout.
      if (node !== undefined) this.#clocks.sample(node, reply[1]);
      this.expired(batch);
      this.#fail(batch, new StoreTimeoutError(this.deadlines.timeoutMs));
      return;
    }
    const { calls } = batch;
    const stride = this.stride(batch);
    const values = batch.keys * stride;
    const statuses = this.#statuses;
    const clock = reply[statuses ? values + calls.length : values] as number;
    batch.clock = clock;
    if (node !== undefined) this.#clocks.sample(node, clock);
    for (let i = 0, at = 0; i < calls.length; i++) {
      const call = calls[i]!;
      const status = statuses ? reply[values + i] : typeof reply[at] === 'number' ? 0 : FAILED;
      if (call.finished) {
        this.late(batch, call, reply, at, status); // timed out: its caller was answered
      } else if (status === FAILED) {
        // The key's function raised an error: its state is unreadable; the store is fine.
        call.finished = true;
        call.reject(this.keyError(call, String(reply[at])));
      } else {
        call.finished = true;
        try {
          call.resolve(this.decode(batch, call, reply, at, status));
        } catch (error) {
          call.reject(asError(error));
        }
      }
      at += call.keys * stride;
    }
    batch.done();
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
