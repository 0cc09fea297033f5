import type { Decision } from '@sluice/core';
import { type Algorithm, keyErrorReason, StoreKeyError, withChargeTime } from '@sluice/core/store';
import { masterOf } from './coalescer.js';
import { type DeadlineQueue, type Pending, StoreTimeoutError } from './deadline-queue.js';
import { EXPIRED, type LuaTwin } from './lua-common.js';
import { MULTI_WIDTH, MultiMode, multiScript } from './lua-multi.js';
import type { LuaScript, RedisClient } from './lua-script.js';
import { keySlot } from './redis-key.js';
import type { ServerClocks } from './server-clock.js';

/** One key of an all-or-nothing request. */
export interface Part {
  /** The Redis key. */
  key: string;
  twin: LuaTwin;
  algorithm: Algorithm;
  cost: number;
}

/** The parts of a request that share a Cluster slot (all of them on a standalone Redis). */
interface Group {
  slot: number;
  /** Indices into the request's parts, in request order. */
  parts: number[];
}

/** A group as one request of a script call: its parts, and the time it decides at. */
interface Job {
  parts: readonly Part[];
  group: Group;
  /** '' for Redis TIME. */
  now: number | '';
}

/** A job's answer: whether it charged, its keys' values (MULTI_WIDTH each), Redis TIME. */
interface Answer {
  charged: boolean;
  values: number[];
  clock: number;
}

/** A job charged by itself (the group of a request on one node), waiting for its batch. */
interface Waiting extends Pending {
  job: Job;
  resolve: (answer: Answer) => void;
}

/** The jobs of one slot sent in one script call. */
interface Batch {
  slot: number;
  waiting: Waiting[];
  keys: number;
}

/** A group that was charged: when (the time its script decided at) and its values. */
interface Charged {
  group: Group;
  at: number;
  values: number[];
}

/** A request across slots while it runs: given up (timed out), and the node it waits on. */
interface Across {
  abandoned: boolean;
  server: string | undefined;
}

/** The most keys sent in one coalesced script call. */
const MAX_BATCH_KEYS = 128;

/**
 * `RedisStore.consumeAll`: a request's keys decided all-or-nothing with the all-or-nothing
 * script (lua-multi.ts).
 *
 * - **One node** (a standalone Redis, or every key in one Cluster slot): one script run
 *   peeks every key and charges them only if each fits: atomic, as MemoryStore. Requests
 *   asked for in one turn of the event loop are coalesced per slot into one `EVALSHA` (up
 *   to {@link MAX_BATCH_KEYS} keys), each decided alone, in order.
 * - **Across Cluster slots**: the keys are grouped by slot; each group is charged
 *   all-or-nothing by one script call, in request order. When a group does not fit, the
 *   groups charged before it are given back by each algorithm's refund (see the twins'
 *   `refund`), the later groups are only asked for their decisions, and the request is
 *   denied. So a denied request keeps nothing charged (exactly for fixed and sliding windows
 *   and the sliding log; for GCRA exactly while the key stays backlogged, see gcra.lua.ts),
 *   but between its charge and its refund the units are held: a concurrent request may be
 *   denied for them. A group that fails or times out after others were charged also gives
 *   them back (best effort: a refund that fails leaves them charged), and so does a whole
 *   request that outlived `timeoutMs`.
 *
 * Every charging call carries its callers' deadline (first call + `timeoutMs`) on the
 * server's clock, as the coalesced single-key calls do: past it the script touches nothing.
 */
export class AllOrNothing {
  readonly #client: RedisClient;
  readonly #cluster: boolean;
  readonly #deadlines: DeadlineQueue;
  readonly #clocks: ServerClocks;
  readonly #script: LuaScript;
  /** Each twin's index (from 1) in the script's tables. */
  readonly #index: Map<LuaTwin, number>;
  /** Open batches by slot. */
  #open = new Map<number, Batch>();

  constructor(
    client: RedisClient,
    cluster: boolean,
    deadlines: DeadlineQueue,
    clocks: ServerClocks,
    twins: readonly LuaTwin[],
  ) {
    this.#client = client;
    this.#cluster = cluster;
    this.#deadlines = deadlines;
    this.#clocks = clocks;
    this.#script = multiScript(twins);
    this.#index = new Map(twins.map((twin, i) => [twin, i + 1]));
  }

  /** Decides `parts` all-or-nothing; `now` is '' for Redis TIME. */
  run(parts: readonly Part[], now: number | ''): Promise<Decision[]> {
    const groups = this.#groups(parts);
    const decisions: Decision[] = new Array(parts.length);
    if (groups.length === 1) {
      const job: Job = { parts, group: groups[0]!, now };
      return this.#queue(job).then((answer) => {
        this.#decode(
          job,
          answer.values,
          decisions,
          now === '' && answer.charged ? answer.clock : -1,
        );
        return decisions;
      });
    }
    const deadline = performance.now() + this.#deadlines.timeoutMs;
    const request: Across = { abandoned: false, server: undefined };
    return this.#deadlines
      .wrap(this.#across(parts, groups, now, deadline, decisions, request))
      .catch((error: unknown) => {
        request.abandoned = true;
        // The node the request was waiting on when it failed: only its breaker counts it.
        if (error instanceof Error && request.server !== undefined) {
          (error as { failureDomain?: string }).failureDomain = request.server;
        }
        throw error;
      });
  }

  /** Sends every open batch now. */
  flush(): void {
    const open = this.#open;
    if (open.size === 0) return;
    this.#open = new Map();
    for (const batch of open.values()) this.#sendBatch(batch);
  }

  readonly #flushAll = (): void => {
    this.flush();
  };

  /** Queues a job to be charged in its slot's batch. */
  #queue(job: Job): Promise<Answer> {
    const slot = job.group.slot;
    let batch = this.#open.get(slot);
    if (batch === undefined) {
      batch = { slot, waiting: [], keys: 0 };
      if (this.#open.size === 0) setImmediate(this.#flushAll);
      this.#open.set(slot, batch);
    }
    let waiting!: Waiting;
    const promise = new Promise<Answer>((resolve, reject) => {
      waiting = { deadline: 0, settled: false, reject, resolve, job };
    });
    batch.waiting.push(waiting);
    batch.keys += job.group.parts.length;
    if (batch.keys >= MAX_BATCH_KEYS) {
      this.#open.delete(slot);
      this.#sendBatch(batch);
    }
    return promise;
  }

  #sendBatch(batch: Batch): void {
    const { waiting } = batch;
    // Tracked from the send (a batch held back by a blocked event loop has not waited on
    // Redis), in one turn of the event loop: the first one's deadline is the earliest.
    const server = this.#cluster ? masterOf(this.#client, batch.slot) : '';
    for (const w of waiting) {
      this.#deadlines.track(w);
      w.server = server;
    }
    let sent: Promise<(Answer | Error)[]>;
    try {
      sent = this.#send(
        waiting.map((w) => w.job),
        batch.slot,
        MultiMode.Charge,
        waiting[0]!.deadline,
      );
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (answers) => {
        for (let i = 0; i < waiting.length; i++) {
          const w = waiting[i]!;
          if (w.settled) continue; // timed out: its late answer is ignored
          w.settled = true;
          const answer = answers[i]!;
          if (answer instanceof Error) w.reject(answer);
          else w.resolve(answer);
        }
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error : new Error(String(error));
        for (const w of waiting) {
          if (w.settled) continue;
          w.settled = true;
          w.reject(reason);
        }
      },
    );
  }

  /** The parts grouped by slot, groups in order of their first part. */
  #groups(parts: readonly Part[]): Group[] {
    if (!this.#cluster) return [{ slot: 0, parts: parts.map((_, i) => i) }];
    const bySlot = new Map<number, Group>();
    for (let i = 0; i < parts.length; i++) {
      const slot = keySlot(parts[i]!.key);
      let group = bySlot.get(slot);
      if (group === undefined) {
        group = { slot, parts: [] };
        bySlot.set(slot, group);
      }
      group.parts.push(i);
    }
    return [...bySlot.values()];
  }

  // biome-ignore lint/complexity/useMaxParams: perf: per multi-limit request across slots; positional, no options object per call
  async #across(
    parts: readonly Part[],
    groups: Group[],
    now: number | '',
    deadline: number,
    decisions: Decision[],
    request: Across,
  ): Promise<Decision[]> {
    const charged: Charged[] = [];
    let denied = -1;
    const refundAll = () => {
      for (const c of charged) this.#refund(parts, c, now).catch(() => undefined);
    };
    try {
      for (let g = 0; g < groups.length && denied < 0; g++) {
        const job: Job = { parts, group: groups[g]!, now };
        request.server = masterOf(this.#client, job.group.slot);
        const answer = await this.#one(job, MultiMode.Charge, deadline);
        if (answer.charged) {
          charged.push({
            group: job.group,
            at: now === '' ? answer.clock : now,
            values: answer.values,
          });
        } else {
          denied = g;
        }
        this.#decode(
          job,
          answer.values,
          decisions,
          now === '' && answer.charged ? answer.clock : -1,
        );
        if (request.abandoned) throw new StoreTimeoutError(this.#deadlines.timeoutMs);
      }
    } catch (error) {
      refundAll();
      throw error;
    }
    if (request.abandoned) {
      // Every group charged, but the caller was answered without us: give it all back.
      refundAll();
      throw new StoreTimeoutError(this.#deadlines.timeoutMs);
    }
    if (denied < 0) return decisions;
    await Promise.all([
      // Each refund answers its keys' peeks: what a denied request reports for them. One
      // that fails leaves its keys charged and their decisions as charged.
      ...charged.map((c) =>
        this.#refund(parts, c, now).then(
          (values) => this.#decode({ parts, group: c.group, now }, values, decisions),
          () => undefined,
        ),
      ),
      ...groups.slice(denied + 1).map((group) => {
        const job: Job = { parts, group, now };
        return this.#one(job, MultiMode.Report, undefined).then((answer) =>
          this.#decode(job, answer.values, decisions),
        );
      }),
    ]);
    return decisions;
  }

  /**
   * Gives back `part.cost` units charged at `at` (ms since the epoch, on the clock the charge
   * was decided by) with its twin's refund, in a script call of its own; resolves to the
   * key's peek afterwards. `now` is '' for Redis TIME.
   */
  refundOne(part: Part, now: number | '', at: number): Promise<Decision> {
    const parts = [part];
    const group: Group = { slot: this.#cluster ? keySlot(part.key) : 0, parts: [0] };
    const values = new Array<number>(MULTI_WIDTH).fill(0);
    return this.#refund(parts, { group, at, values }, now).then((reply) =>
      part.twin.decode(reply, 0, part.algorithm, 0),
    );
  }

  #refund(parts: readonly Part[], charged: Charged, now: number | ''): Promise<number[]> {
    const job: Job = { parts, group: charged.group, now };
    return this.#one(job, MultiMode.Refund, undefined, charged).then((answer) => answer.values);
  }

  /** One job in a script call of its own, within `timeoutMs`. */
  #one(job: Job, mode: number, deadline: number | undefined, charged?: Charged): Promise<Answer> {
    return this.#deadlines
      .wrap(this.#send([job], job.group.slot, mode, deadline, charged))
      .then(([answer]) => {
        if (answer instanceof Error) throw answer;
        return answer!;
      });
  }

  /**
   * One call of the script with `jobs` (all in `slot`); `deadline` (performance.now ms)
   * goes to the script on the server's clock (none when undefined). Rejects with
   * {@link StoreTimeoutError} when the script answered that its deadline had passed; a job
   * whose function raised an error answers an Error.
   */
  #send(
    jobs: readonly Job[],
    slot: number,
    mode: number,
    deadline: number | undefined,
    charged?: Charged,
  ): Promise<(Answer | Error)[]> {
    const server = this.#cluster ? masterOf(this.#client, slot) : '';
    const keys: (string | number)[] = [];
    const argv: (string | number)[] = [
      deadline === undefined || server === undefined
        ? ''
        : this.#clocks.deadlineOn(server, deadline),
      mode,
      jobs.length,
    ];
    for (const { parts, group, now } of jobs) {
      argv.push(group.parts.length, now);
      for (let k = 0; k < group.parts.length; k++) {
        const part = parts[group.parts[k]!]!;
        keys.push(part.key);
        argv.push(this.#index.get(part.twin)!, part.cost);
        if (charged !== undefined) {
          // The charge's time and its reply's 4th value (GCRA: resetTicks; fixed window: ms
          // to the window's end), which each refund needs.
          argv.push(charged.at, charged.values[k * MULTI_WIDTH + 3]!);
        }
        const params = part.algorithm.params;
        for (let j = 0; j < params.length; j++) argv.push(params[j]!);
      }
    }
    const n = keys.length;
    for (const value of argv) keys.push(value);
    return this.#script.runMany(this.#client, n, keys).then((value) => {
      const reply = value as (number | string)[];
      if (reply[0] === EXPIRED) {
        if (server !== undefined) this.#clocks.sample(server, reply[1]);
        throw new StoreTimeoutError(this.#deadlines.timeoutMs);
      }
      const clock = reply[n * MULTI_WIDTH + jobs.length] as number;
      if (server !== undefined) this.#clocks.sample(server, clock);
      const answers: (Answer | Error)[] = [];
      let at = 0;
      for (let r = 0; r < jobs.length; r++) {
        const end = at + jobs[r]!.group.parts.length * MULTI_WIDTH;
        const status = reply[n * MULTI_WIDTH + r];
        answers.push(
          status === -1
            ? new StoreKeyError(
                jobs[r]!.parts[jobs[r]!.group.parts[0]!]!.algorithm.description,
                keyErrorReason(String(reply[at])),
              )
            : { charged: status === 1, values: reply.slice(at, end) as number[], clock },
        );
        at = end;
      }
      return answers;
    });
  }

  /** Decodes a job's decisions; `at` >= 0: they were charged on Redis TIME `at` (recorded). */
  #decode(job: Job, values: number[], decisions: Decision[], at = -1): void {
    const { parts, group } = job;
    for (let k = 0; k < group.parts.length; k++) {
      const i = group.parts[k]!;
      const part = parts[i]!;
      const d = part.twin.decode(values, k * MULTI_WIDTH, part.algorithm, part.cost);
      decisions[i] = at >= 0 && d.allowed && part.cost > 0 ? withChargeTime(d, at) : d;
    }
  }
}
