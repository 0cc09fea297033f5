import type { Algorithm } from '@sluice/core/store';
import type { LuaTwin } from '../lua-common.js';
import { FETCH_STRIDE, FetchMode, fetchScript } from '../prefetch.lua.js';
import { SHARE } from '../prefetch-options.js';
import { keySlot } from '../redis-key.js';
import { Batch, type Call, type EngineOptions, MAX_BATCH } from './engine.js';
import { type Answer, MultiKeyEngine } from './multi-key.js';

export type { Answer } from './multi-key.js';

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

/** One request of a script call: its parts, in one slot. */
interface FetchCall extends Call<Answer> {
  parts: readonly FetchPart[];
  now: ScriptNow;
}

/** Jobs of one mode and slot sent in one script call. */
class FetchBatch extends Batch<FetchCall> {
  readonly mode: number;

  constructor(mode: number, slot: number) {
    super(mode, slot);
    this.mode = mode;
    // A fetch carries its callers' deadline; a give-back none. A breaker opening does not
    // abandon them: what a fetch takes is given back, whenever it answers.
    this.cutoff = mode === FetchMode.Fetch ? 'send' : undefined;
    this.abandonable = false;
  }
}

/** The time to pass to a script: '' for Redis TIME. */
export type ScriptNow = number | '';

/**
 * The script calls of a prefetch (prefetch.lua.ts): fetches and give-backs asked for in one
 * turn of the event loop share one call per mode and node (up to {@link MAX_BATCH}
 * keys). A fetch carries its callers' deadline on the server's clock (past it the script
 * touches nothing, and what it was to give back first is given back again); a fetch that
 * charged after its caller gave up is given back whole; every call settles within
 * `timeoutMs`.
 */
export class FetchCalls extends MultiKeyEngine<FetchCall, FetchBatch> {
  readonly #units: number;

  /** @param options.units - the most units a fetch takes of one key. */
  constructor(
    options: Omit<EngineOptions, 'statuses' | 'inflight'> & {
      units: number;
      twins: readonly LuaTwin[];
    },
  ) {
    const { twins } = options;
    super(
      { ...options, inflight: true },
      { script: fetchScript(twins), twins, stride: FETCH_STRIDE },
    );
    this.#units = options.units;
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

  /** Resolves once every script call sent so far (and the give-backs they lead to) answered. */
  settled(): Promise<void> {
    return this.idle();
  }

  /**
   * Queues one request (its parts in one slot) for the next script call of `mode`; a fetch
   * call carries its deadline to the script; each call settles within `timeoutMs`.
   */
  queue(mode: number, parts: readonly FetchPart[], now: ScriptNow): Promise<Answer> {
    const slot = this.cluster ? keySlot(parts[0]!.redisKey) : 0;
    const batch = this.openBatch(mode, slot) ?? this.open(new FetchBatch(mode, slot));
    return new Promise<Answer>((resolve, reject) => {
      this.join(batch, { resolve, reject, settled: false, keys: parts.length, parts, now });
    });
  }

  /**
   * KEYS: every call's keys; ARGV: deadline, mode, units, share, calls, then per call its keys
   * and now, per key its twin's index, cost, what to give back (units, at, reset), params.
   */
  protected args(batch: FetchBatch, deadline: number | ''): (string | number)[] {
    const { calls } = batch;
    const keys: (string | number)[] = [];
    const argv: (string | number)[] = [deadline, batch.mode, this.#units, SHARE, calls.length];
    for (const { parts, now } of calls) {
      argv.push(parts.length, now);
      for (const part of parts) {
        keys.push(part.redisKey);
        argv.push(this.twinIndex(part.twin), part.cost, part.give, part.at, part.reset);
        const params = part.algorithm.params;
        for (let j = 0; j < params.length; j++) argv.push(params[j]!);
      }
    }
    return this.keysThen(keys, argv);
  }

  protected keyError(_call: FetchCall, message: string): Error {
    return new Error(message);
  }

  /** Nothing ran: what a call was to give back first is still to give back. */
  protected override expired(batch: FetchBatch): void {
    for (const call of batch.calls) this.giveBackAgain(call.parts, call.now);
  }

  /**
   * A fetch whose caller timed out and was answered by the failure policy: nothing it took
   * stays charged.
   */
  protected override late(
    batch: FetchBatch,
    call: FetchCall,
    reply: unknown[],
    offset: number,
    status: unknown,
  ): void {
    if (status !== 1) return;
    const parts = call.parts.map((part, i) => ({
      ...part,
      cost: 0,
      give: reply[offset + i * FETCH_STRIDE + FETCH_STRIDE - 1] as number,
      at: call.now === '' ? batch.clock : call.now,
      reset: reply[offset + i * FETCH_STRIDE + 3] as number,
    }));
    this.queue(FetchMode.GiveBack, parts, call.now).catch(() => undefined);
  }
}
