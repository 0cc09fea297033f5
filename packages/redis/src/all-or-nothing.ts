import type { Algorithm, Decision } from '@sluice/core';
import { masterOf } from './coalescer.js';
import { type DeadlineQueue, StoreTimeoutError } from './deadline-queue.js';
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

/** A group that was charged: when (the time its script decided at) and its reply. */
interface Charged {
  group: Group;
  at: number;
  reply: number[];
}

/**
 * `RedisStore.consumeAll`: a request's keys decided all-or-nothing with the all-or-nothing
 * script (lua-multi.ts), one `EVALSHA` per request, sent at once (not coalesced).
 *
 * - **One node** (a standalone Redis, or every key in one Cluster slot): one script call
 *   peeks every key and charges them only if each fits: atomic, as MemoryStore.
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
 * Every charging call carries the request's deadline (first call + `timeoutMs`) on the
 * server's clock, as the coalesced calls do: past it the script touches nothing.
 */
export class AllOrNothing {
  readonly #client: RedisClient;
  readonly #cluster: boolean;
  readonly #deadlines: DeadlineQueue;
  readonly #clocks: ServerClocks;
  readonly #script: LuaScript;
  /** Each twin's index (from 1) in the script's tables. */
  readonly #index: Map<LuaTwin, number>;

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
    const deadline = performance.now() + this.#deadlines.timeoutMs;
    const groups = this.#groups(parts);
    const decisions: Decision[] = new Array(parts.length);
    if (groups.length === 1) {
      const group = groups[0]!;
      return this.#call(parts, group, MultiMode.Charge, now, deadline).then((reply) => {
        this.#decode(parts, group, reply, decisions);
        return decisions;
      });
    }
    const request = { abandoned: false };
    return this.#deadlines
      .wrap(this.#across(parts, groups, now, deadline, decisions, request))
      .catch((error: unknown) => {
        request.abandoned = true;
        throw error;
      });
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

  async #across(
    parts: readonly Part[],
    groups: Group[],
    now: number | '',
    deadline: number,
    decisions: Decision[],
    request: { abandoned: boolean },
  ): Promise<Decision[]> {
    const charged: Charged[] = [];
    let denied = -1;
    try {
      for (let g = 0; g < groups.length && denied < 0; g++) {
        const group = groups[g]!;
        const reply = await this.#call(parts, group, MultiMode.Charge, now, deadline);
        const n = group.parts.length;
        if (reply[n * MULTI_WIDTH] === 1) {
          charged.push({ group, at: now === '' ? reply[n * MULTI_WIDTH + 1]! : now, reply });
        } else {
          denied = g;
        }
        this.#decode(parts, group, reply, decisions);
        if (request.abandoned) throw new StoreTimeoutError(this.#deadlines.timeoutMs);
      }
    } catch (error) {
      for (const c of charged) this.#refund(parts, c, now).catch(() => undefined);
      throw error;
    }
    if (request.abandoned) {
      // Every group charged, but the caller was answered without us: give it all back.
      for (const c of charged) this.#refund(parts, c, now).catch(() => undefined);
      throw new StoreTimeoutError(this.#deadlines.timeoutMs);
    }
    if (denied < 0) return decisions;
    await Promise.all([
      // Each refund answers its keys' peeks: what a denied request reports for them. One
      // that fails leaves its keys charged and their decisions as charged.
      ...charged.map((c) =>
        this.#refund(parts, c, now).then(
          (reply) => this.#decode(parts, c.group, reply, decisions),
          () => undefined,
        ),
      ),
      ...groups
        .slice(denied + 1)
        .map((group) =>
          this.#call(parts, group, MultiMode.Report, now, undefined).then((reply) =>
            this.#decode(parts, group, reply, decisions),
          ),
        ),
    ]);
    return decisions;
  }

  #refund(parts: readonly Part[], charged: Charged, now: number | ''): Promise<number[]> {
    return this.#call(parts, charged.group, MultiMode.Refund, now, undefined, charged);
  }

  /**
   * One call of the script on `group`, within `timeoutMs`; `deadline` (performance.now ms)
   * goes to the script on the server's clock (none when undefined). Rejects with
   * {@link StoreTimeoutError} when the script answered that its deadline had passed.
   */
  #call(
    parts: readonly Part[],
    group: Group,
    mode: number,
    now: number | '',
    deadline: number | undefined,
    charged?: Charged,
  ): Promise<number[]> {
    const server = this.#cluster ? masterOf(this.#client, group.slot) : '';
    const argv: (string | number)[] = [];
    for (const i of group.parts) argv.push(parts[i]!.key);
    argv.push(
      deadline === undefined || server === undefined
        ? ''
        : this.#clocks.deadlineOn(server, deadline),
      now,
      mode,
    );
    for (let k = 0; k < group.parts.length; k++) {
      const part = parts[group.parts[k]!]!;
      argv.push(this.#index.get(part.twin)!, part.cost);
      if (charged !== undefined) {
        // The charge's time and its reply's 4th value (GCRA: resetTicks; fixed window: ms
        // to the window's end), which each refund needs.
        argv.push(charged.at, charged.reply[k * MULTI_WIDTH + 3]!);
      }
      const params = part.algorithm.params;
      for (let j = 0; j < params.length; j++) argv.push(params[j]!);
    }
    const n = group.parts.length;
    return this.#deadlines.wrap(this.#script.runMany(this.#client, n, argv)).then((value) => {
      const reply = value as number[];
      if (reply[0] === EXPIRED) {
        if (server !== undefined) this.#clocks.sample(server, reply[1]);
        throw new StoreTimeoutError(this.#deadlines.timeoutMs);
      }
      if (server !== undefined) this.#clocks.sample(server, reply[n * MULTI_WIDTH + 1]);
      return reply;
    });
  }

  #decode(parts: readonly Part[], group: Group, reply: number[], decisions: Decision[]): void {
    for (let k = 0; k < group.parts.length; k++) {
      const i = group.parts[k]!;
      const part = parts[i]!;
      decisions[i] = part.twin.decode(reply, k * MULTI_WIDTH, part.algorithm, part.cost);
    }
  }
}
