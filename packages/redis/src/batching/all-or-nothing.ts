import type { Decision } from '@sluice/core';
import {
  type Algorithm,
  keyErrorReason,
  StoreKeyError,
  StoreTimeoutError,
  withChargeTime,
} from '@sluice/core/store';
import { keySlot } from '../redis-key.js';
import type { LuaTwin } from '../twins/lua-common.js';
import { MULTI_WIDTH, MultiMode, multiScript } from '../twins/lua-multi.js';
import { Batch, type Call, type EngineOptions, MAX_BATCH } from './engine.js';
import { type Answer, MultiKeyEngine } from './multi-key.js';

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

/** A job in a script call: one request's keys of one slot. */
interface MultiCall extends Call<Answer> {
  job: Job;
}

/** Jobs of one slot in one script call, in one mode (refunds: with what was charged). */
class MultiBatch extends Batch<MultiCall> {
  readonly mode: number;
  readonly charged: Charged | undefined;

  constructor(mode: number, slot: number, charged?: Charged) {
    super('', slot);
    this.mode = mode;
    this.charged = charged;
  }
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

/**
 * `RedisStore.consumeAll`: a request's keys decided all-or-nothing with the all-or-nothing
 * script (lua-multi.ts).
 *
 * - **One node** (a standalone Redis, or every key in one Cluster slot): one script run
 *   peeks every key and charges them only if each fits: atomic, as MemoryStore. Requests
 *   asked for in one turn of the event loop are coalesced per slot into one `EVALSHA` (up
 *   to {@link MAX_BATCH} keys), each decided alone, in order.
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
 * Every charging call carries its callers' deadline on the server's clock (its send +
 * `timeoutMs`; across slots, the request's start + `timeoutMs`), as the single-key calls
 * do: past it the script touches nothing.
 */
export class AllOrNothing extends MultiKeyEngine<MultiCall, MultiBatch> {
  constructor(options: Omit<EngineOptions, 'statuses'> & { twins: readonly LuaTwin[] }) {
    const { twins } = options;
    super(options, { script: multiScript(twins), twins, stride: MULTI_WIDTH });
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
    const deadline = performance.now() + this.deadlines.timeoutMs;
    const request: Across = { abandoned: false, server: undefined };
    return this.deadlines
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

  /** Queues a job to be charged in its slot's batch. */
  #queue(job: Job): Promise<Answer> {
    const slot = job.group.slot;
    const batch = this.openBatch('', slot) ?? this.open(new MultiBatch(MultiMode.Charge, slot));
    return new Promise<Answer>((resolve, reject) => {
      this.join(batch, { resolve, reject, finished: false, keys: job.group.parts.length, job });
    });
  }

  /** The parts grouped by slot, groups in order of their first part. */
  #groups(parts: readonly Part[]): Group[] {
    if (!this.cluster) return [{ slot: 0, parts: parts.map((_, i) => i) }];
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
        request.server = this.client.masterOf(job.group.slot);
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
        if (request.abandoned) throw new StoreTimeoutError(this.deadlines.timeoutMs);
      }
    } catch (error) {
      refundAll();
      throw error;
    }
    if (request.abandoned) {
      // Every group charged, but the caller was answered without us: give it all back.
      refundAll();
      throw new StoreTimeoutError(this.deadlines.timeoutMs);
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
    const group: Group = { slot: this.cluster ? keySlot(part.key) : 0, parts: [0] };
    const values = new Array<number>(MULTI_WIDTH).fill(0);
    return this.#refund(parts, { group, at, values }, now).then((reply) =>
      part.twin.decode(reply, 0, part.algorithm, 0),
    );
  }

  #refund(parts: readonly Part[], charged: Charged, now: number | ''): Promise<number[]> {
    const job: Job = { parts, group: charged.group, now };
    return this.#one(job, MultiMode.Refund, undefined, charged).then((answer) => answer.values);
  }

  /**
   * One job in a script call of its own, within `timeoutMs`; `deadline` (performance.now
   * ms) goes to the script on the server's clock (none when undefined). A breaker opening
   * does not abandon it: the request it belongs to answers for it.
   */
  #one(job: Job, mode: number, deadline: number | undefined, charged?: Charged): Promise<Answer> {
    const batch = new MultiBatch(mode, job.group.slot, charged);
    batch.cutoff = deadline;
    batch.abandonable = false;
    return new Promise<Answer>((resolve, reject) => {
      this.sendAlone(batch, {
        resolve,
        reject,
        finished: false,
        keys: job.group.parts.length,
        job,
      });
    });
  }

  /**
   * KEYS: every job's keys; ARGV: deadline, mode, jobs, then per job its keys and now, per
   * key its twin's index, cost, (refunds: the charge's time and reply's 4th value), params.
   */
  protected args(batch: MultiBatch, deadline: number | ''): (string | number)[] {
    const { calls, charged } = batch;
    const keys: (string | number)[] = [];
    const argv: (string | number)[] = [deadline, batch.mode, calls.length];
    for (const { job } of calls) {
      const { parts, group, now } = job;
      argv.push(group.parts.length, now);
      for (let k = 0; k < group.parts.length; k++) {
        const part = parts[group.parts[k]!]!;
        keys.push(part.key);
        argv.push(this.twinIndex(part.twin), part.cost);
        if (charged !== undefined) {
          // The charge's time and its reply's 4th value (GCRA: resetTicks; fixed window: ms
          // to the window's end), which each refund needs.
          argv.push(charged.at, charged.values[k * MULTI_WIDTH + 3]!);
        }
        const params = part.algorithm.params;
        for (let j = 0; j < params.length; j++) argv.push(params[j]!);
      }
    }
    return this.keysThen(keys, argv);
  }

  /**
   * A reply for a charge its caller gave up on (answered by the failure policy): the script
   * ran before the call's deadline, but its reply came too late. What it charged is given
   * back with each twin's refund (best effort: a refund that fails leaves it charged). A
   * request across slots gives back its other groups itself.
   */
  protected override late(
    batch: MultiBatch,
    call: MultiCall,
    reply: unknown[],
    offset: number,
    status: unknown,
  ): void {
    if (batch.mode !== MultiMode.Charge || status !== 1) return;
    const { parts, group, now } = call.job;
    const values = reply.slice(offset, offset + group.parts.length * MULTI_WIDTH) as number[];
    const at = now === '' ? batch.clock : now;
    this.#refund(parts, { group, at, values }, now).catch(() => undefined);
  }

  protected keyError(call: MultiCall, message: string): Error {
    const { parts, group } = call.job;
    return new StoreKeyError(
      parts[group.parts[0]!]!.algorithm.description,
      keyErrorReason(message),
    );
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
