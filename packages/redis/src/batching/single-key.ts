import type { Decision } from '@sluice/core';
import { type Algorithm, keyErrorReason, StoreKeyError, withChargeTime } from '@sluice/core/store';
import { keySlot } from '../redis-key.js';
import type { LuaTwin } from '../twins/lua-common.js';
import type { LuaScript } from '../twins/lua-script.js';
import type { Part } from './all-or-nothing.js';
import { Batch, BatchEngine, type Call, type EngineOptions } from './engine.js';

/** Gives back `part.cost` units charged at `at` (ms, on the clock of `now`; '' = Redis TIME). */
export type GiveBack = (part: Part, now: number | '', at: number) => Promise<unknown>;

/** One decision asked for. */
interface KeyCall extends Call<Decision> {
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

/** Decisions of one kind and params (one limiter's settings, or several limiters' equal ones). */
class KeyBatch extends Batch<KeyCall> {
  readonly twin: LuaTwin;
  readonly algorithm: Algorithm;
  /**
   * The script's argv: the keys, in call order (params, (now, cost) and the deadline are
   * appended when the batch is sent).
   */
  readonly argv: (string | number)[] = [];
  /** (now, cost) per call, in call order, once two calls differ; until then only the first's. */
  nowAndCost: (string | number)[] | undefined;
  /** The first call's now ('' for Redis TIME) and cost: every call's while they agree. */
  readonly now: number | '';
  readonly cost: number;

  constructor(twin: LuaTwin, algorithm: Algorithm, slot: number, now: number | '', cost: number) {
    super(groupKey(algorithm), slot);
    this.twin = twin;
    this.algorithm = algorithm;
    this.now = now;
    this.cost = cost;
  }

  /** Adds `key` at (`now`, `cost`) to the arguments (the engine adds the call). */
  push(key: string, now: number | '', cost: number): void {
    const n = this.argv.length;
    this.argv.push(key);
    if (this.nowAndCost !== undefined) this.nowAndCost.push(now, cost);
    else if (now !== this.now || cost !== this.cost) {
      // perf: one (now, cost) for the whole batch while its calls agree; from the first call
      // that differs, every call's.
      const nowAndCost: (string | number)[] = [];
      for (let i = 0; i < n; i++) nowAndCost.push(this.now, this.cost);
      nowAndCost.push(now, cost);
      this.nowAndCost = nowAndCost;
    }
  }

  override done(): void {
    super.done();
    this.argv.length = 0;
    this.nowAndCost = undefined;
  }
}

/**
 * The single-key path of `RedisStore.consume`: calls are grouped by algorithm kind and
 * params (so the params are sent once per batch) and, on a Cluster, by slot. A batch of one
 * runs the twin's single-key script, a larger one its batch script: each key decided by the
 * same Lua function as alone, in call order, all in one atomic script.
 */
export class SingleKeyBatches extends BatchEngine<Decision, KeyCall, KeyBatch> {
  /** The batch the last call joined, while open: the common case, no lookup. */
  #last: KeyBatch | undefined;
  /** Gives back `part.cost` units charged at `at` (the store's refund). */
  readonly #giveBack: GiveBack;

  /**
   * @param options.giveBack - gives back what a call charged when its reply came after its
   *   caller was answered without it (timed out, or its node's breaker opened).
   */
  constructor(options: Omit<EngineOptions, 'statuses' | 'raw'> & { giveBack: GiveBack }) {
    super({ ...options, statuses: false, raw: true });
    this.#giveBack = options.giveBack;
  }

  /** Queues one decision; `now` is '' for Redis TIME. Finishes within the deadline queue's timeout. */
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
      const slot = this.cluster ? keySlot(key) : 0;
      batch = this.openBatch(groupKey(algorithm), slot);
      if (batch === undefined) batch = this.open(new KeyBatch(twin, algorithm, slot, now, cost));
      if (!this.cluster) this.#last = batch;
    }
    let call!: KeyCall;
    const promise = new Promise<Decision>((resolve, reject) => {
      call = { resolve, reject, finished: false, keys: 1, cost, algorithm };
    });
    batch.push(key, now, cost);
    this.join(batch, call);
    return promise;
  }

  override flush(): void {
    this.#last = undefined;
    super.flush();
  }

  protected script(batch: KeyBatch): LuaScript {
    return batch.keys === 1 ? batch.twin.single : batch.twin.batch;
  }

  protected args(batch: KeyBatch, deadline: number | ''): (string | number)[] {
    const params = batch.algorithm.params;
    const argv = batch.argv;
    if (batch.keys === 1) {
      // KEYS[1], now, cost, ...params, deadline
      argv.push(batch.now, batch.cost);
      for (let i = 0; i < params.length; i++) argv.push(params[i]!);
    } else {
      // KEYS, ...params, (now, cost) x n or one (now, cost) for all, deadline
      for (let i = 0; i < params.length; i++) argv.push(params[i]!);
      const nowAndCost = batch.nowAndCost;
      if (nowAndCost === undefined) argv.push(batch.now, batch.cost);
      else for (let i = 0; i < nowAndCost.length; i++) argv.push(nowAndCost[i]!);
    }
    argv.push(deadline);
    return argv;
  }

  protected stride(batch: KeyBatch): number {
    return batch.twin.replyWidth;
  }

  protected decode(batch: KeyBatch, call: KeyCall, reply: unknown[], at: number): Decision {
    const { cost } = call;
    const decision = batch.twin.decodeReply(reply as number[], at, call.algorithm, cost);
    // On Redis TIME ('' as now), a charge records when it was decided, for its refund.
    return batch.now === '' && decision.allowed && cost > 0
      ? withChargeTime(decision, batch.clock)
      : decision;
  }

  /**
   * A reply for a call its caller gave up on (answered by the failure policy): the script
   * ran before the call's deadline, but its reply came too late. What it charged is given
   * back with its twin's refund, so the call leaves nothing charged (best effort: a refund
   * that fails leaves it charged).
   */
  protected override late(batch: KeyBatch, call: KeyCall, reply: unknown[], at: number): void {
    const { cost } = call;
    if (cost <= 0 || typeof reply[at] !== 'number') return;
    const stride = batch.twin.replyWidth;
    const decision = batch.twin.decodeReply(reply as number[], at, call.algorithm, cost);
    if (!decision.allowed) return;
    // The call's key: the keys lead the argv, in call order (one call, one key).
    const key = batch.argv[at / stride] as string;
    const now = (batch.nowAndCost?.[(2 * at) / stride] ?? batch.now) as number | '';
    const part = { key, twin: batch.twin, algorithm: call.algorithm, cost };
    this.#giveBack(part, now, now === '' ? batch.clock : now).catch(() => undefined);
  }

  protected keyError(call: KeyCall, message: string): Error {
    return new StoreKeyError(call.algorithm.description, keyErrorReason(message));
  }
}
