import type { Algorithm } from '@sluice/core/store';
import { masterOf } from './coalescer.js';
import { type DeadlineQueue, type Pending, StoreTimeoutError } from './deadline-queue.js';
import { EXPIRED, type LuaTwin } from './lua-common.js';
import type { LuaScript, RedisClient } from './lua-script.js';
import { FETCH_STRIDE, FetchMode, fetchScript } from './prefetch.lua.js';
import { SHARE } from './prefetch-options.js';
import { keySlot } from './redis-key.js';
import type { ServerClocks } from './server-clock.js';

/** One key of a fetch or give-back. */
export interface FetchPart {
  /** The store's key (as `RedisStore.consume` takes it). */
  key: string;
  /** Its Redis key. */
  redisKey: string;
  twin: LuaTwin;
  algorithm: Algorithm;
  /** Units the request asks for (0 in a give-back). */
  cost: number;
  /** Units to give back first, charged at `at` whose reply's 4th value was `reset`. */
  give: number;
  at: number;
  reset: number;
}

/** A call's answer for one request: whether it charged, its keys' values, Redis TIME. */
export interface Answer {
  charged: boolean;
  values: number[];
  clock: number;
}

/** One request of a script call. */
interface Job extends Pending {
  parts: readonly FetchPart[];
  now: number | '';
  slot: number;
  resolve: (answer: Answer) => void;
}

/** Jobs of one mode and slot to send in one script call. */
interface Batch {
  mode: number;
  slot: number;
  jobs: Job[];
  keys: number;
}

/** The most keys sent in one script call. */
export const MAX_BATCH_KEYS = 128;

/** The time to pass to a script: '' for Redis TIME. */
export type ScriptNow = number | '';

/**
 * The script calls of a prefetch (prefetch.lua.ts): fetches and give-backs asked for in one
 * turn of the event loop share one call per mode and node (up to {@link MAX_BATCH_KEYS}
 * keys). A fetch carries its callers' deadline on the server's clock (past it the script
 * touches nothing, and what it was to give back first is given back again); a fetch that
 * charged after its caller gave up is given back whole; every call settles within
 * `timeoutMs`.
 */
export class FetchCalls {
  readonly #units: number;
  readonly #client: RedisClient;
  readonly #cluster: boolean;
  readonly #deadlines: DeadlineQueue;
  readonly #clocks: ServerClocks;
  readonly #script: LuaScript;
  /** Each twin's index (from 1) in the script's tables. */
  readonly #index: Map<LuaTwin, number>;
  /** Open batches by mode then slot. */
  #open = new Map<number, Map<number, Batch>>();
  /** Script calls sent and not yet answered (`settled()` waits for them). */
  readonly #inflight = new Set<Promise<unknown>>();

  /**
   * @param parts.units - the most units a fetch takes of one key.
   * @param parts.cluster - whether `client` is a `Cluster`: calls are then grouped by slot.
   */
  constructor(parts: {
    units: number;
    client: RedisClient;
    cluster: boolean;
    deadlines: DeadlineQueue;
    clocks: ServerClocks;
    twins: readonly LuaTwin[];
  }) {
    const { units, client, cluster, deadlines, clocks, twins } = parts;
    this.#units = units;
    this.#client = client;
    this.#cluster = cluster;
    this.#deadlines = deadlines;
    this.#clocks = clocks;
    this.#script = fetchScript(twins);
    this.#index = new Map(twins.map((twin, i) => [twin, i + 1]));
  }

  /** Gives back `parts`' `give` units (best effort: a failure leaves them charged). */
  giveBack(parts: readonly FetchPart[], now: ScriptNow): void {
    this.queue(FetchMode.GiveBack, parts, now).catch(() => undefined);
  }

  /** Gives back again what a fetch that never ran was to give back first. */
  giveBackAgain(parts: readonly FetchPart[], now: ScriptNow): void {
    for (const part of parts) {
      if (part.give === 0) continue;
      this.queue(FetchMode.GiveBack, [{ ...part, cost: 0 }], now).catch(() => undefined);
    }
  }

  /** Sends every open batch now (e.g. before a `DEL` that must come after them). */
  flush(): void {
    const open = this.#open;
    if (open.size === 0) return;
    this.#open = new Map();
    for (const [mode, bySlot] of open) for (const batch of bySlot.values()) this.#send(mode, batch);
  }

  /** Resolves once every script call sent so far (and the give-backs they lead to) answered. */
  async settled(): Promise<void> {
    this.flush();
    while (this.#inflight.size > 0) {
      await Promise.allSettled([...this.#inflight]);
      this.flush();
    }
  }

  /**
   * Queues one request (its parts in one slot) for the next script call of `mode`; a fetch
   * job carries its deadline to the script; each job settles within `timeoutMs`.
   */
  queue(mode: number, parts: readonly FetchPart[], now: ScriptNow): Promise<Answer> {
    const slot = this.#cluster ? keySlot(parts[0]!.redisKey) : 0;
    let bySlot = this.#open.get(mode);
    if (bySlot === undefined) {
      bySlot = new Map();
      if (this.#open.size === 0) setImmediate(this.#flushAll);
      this.#open.set(mode, bySlot);
    }
    let batch = bySlot.get(slot);
    if (batch === undefined) {
      batch = { mode, slot, jobs: [], keys: 0 };
      bySlot.set(slot, batch);
    }
    let job!: Job;
    const promise = new Promise<Answer>((resolve, reject) => {
      job = { deadline: 0, settled: false, reject, resolve, parts, now, slot };
    });
    this.#deadlines.track(job);
    batch.jobs.push(job);
    batch.keys += parts.length;
    if (batch.keys >= MAX_BATCH_KEYS) {
      bySlot.delete(slot);
      this.#send(mode, batch);
    }
    return promise;
  }

  readonly #flushAll = (): void => {
    this.flush();
  };

  #send(mode: number, batch: Batch): void {
    const { jobs, slot } = batch;
    const server = this.#cluster ? masterOf(this.#client, slot) : '';
    const keys: (string | number)[] = [];
    const deadline =
      mode === FetchMode.Fetch && server !== undefined
        ? this.#clocks.deadlineOn(server, jobs[0]!.deadline)
        : '';
    const argv: (string | number)[] = [deadline, mode, this.#units, SHARE, jobs.length];
    for (const { parts, now } of jobs) {
      argv.push(parts.length, now);
      for (const part of parts) {
        keys.push(part.redisKey);
        argv.push(this.#index.get(part.twin)!, part.cost, part.give, part.at, part.reset);
        const params = part.algorithm.params;
        for (let j = 0; j < params.length; j++) argv.push(params[j]!);
      }
    }
    const n = keys.length;
    for (const value of argv) keys.push(value);
    let sent: Promise<unknown>;
    try {
      sent = this.#script.runMany(this.#client, n, keys);
    } catch (error) {
      sent = Promise.reject(error);
    }
    const done = sent.then(
      (value) => this.#settle(jobs, n, server, value as (number | string)[]),
      (error: unknown) => {
        const reason = error instanceof Error ? error : new Error(String(error));
        for (const job of jobs) {
          if (job.settled) continue;
          job.settled = true;
          job.reject(reason);
        }
      },
    );
    this.#inflight.add(done);
    done.then(() => this.#inflight.delete(done));
  }

  #settle(jobs: Job[], n: number, server: string | undefined, reply: (number | string)[]): void {
    if (reply[0] === EXPIRED) {
      // Nothing ran: what a job was to give back first is still to give back.
      if (server !== undefined) this.#clocks.sample(server, reply[1]);
      for (const job of jobs) {
        this.giveBackAgain(job.parts, job.now);
        if (job.settled) continue;
        job.settled = true;
        job.reject(new StoreTimeoutError(this.#deadlines.timeoutMs));
      }
      return;
    }
    const clock = reply[n * FETCH_STRIDE + jobs.length] as number;
    if (server !== undefined) this.#clocks.sample(server, clock);
    let at = 0;
    for (let r = 0; r < jobs.length; r++) {
      const job = jobs[r]!;
      const end = at + job.parts.length * FETCH_STRIDE;
      const status = reply[n * FETCH_STRIDE + r];
      if (job.settled) {
        // Its caller timed out and was answered by the failure policy: nothing it took
        // stays charged.
        if (status === 1) this.#giveBackLate(job, reply, at, clock);
      } else {
        job.settled = true;
        if (status === -1) job.reject(new Error(String(reply[at])));
        else
          job.resolve({ charged: status === 1, values: reply.slice(at, end) as number[], clock });
      }
      at = end;
    }
  }

  /** Gives back every unit a fetch took whose caller had given up on it. */
  #giveBackLate(job: Job, reply: (number | string)[], offset: number, clock: number): void {
    const parts = job.parts.map((part, i) => ({
      ...part,
      cost: 0,
      give: reply[offset + i * FETCH_STRIDE + FETCH_STRIDE - 1] as number,
      at: job.now === '' ? clock : job.now,
      reset: reply[offset + i * FETCH_STRIDE + 3] as number,
    }));
    this.queue(FetchMode.GiveBack, parts, job.now).catch(() => undefined);
  }
}
