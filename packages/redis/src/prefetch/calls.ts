import type { Algorithm } from '@sluice/core/store';
import { Batch, type Call, type EngineOptions, MAX_BATCH } from '../batching/engine.js';
import { type Answer, MultiKeyEngine } from '../batching/multi-key.js';
import { keySlot } from '../redis-key.js';
import type { LuaTwin } from '../twins/lua-common.js';
import { FETCH_STRIDE, FetchMode, fetchScript } from './fetch.lua.js';
import { SHARE } from './options.js';

export type { Answer } from '../batching/multi-key.js';

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

/**
 * The part of a script call for `of`'s key that gives back `give` units charged at `at`
 * (whose reply's 4th value was `reset`), then asks `cost` units (0: a give-back alone).
 */
export function givePart(
  of: Pick<FetchPart, 'key' | 'redisKey' | 'twin' | 'algorithm'>,
  give: number,
  at: number,
  reset: number,
  cost = 0,
): FetchPart {
  const { key, redisKey, twin, algorithm } = of;
  return { key, redisKey, twin, algorithm, cost, give, at, reset };
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
 * charged after its caller gave up is given back whole; every call finishes within
 * `timeoutMs`.
 */
export class FetchCalls extends MultiKeyEngine<FetchCall, FetchBatch> {
  readonly #units: number;
  /** Units whose give-back failed (left charged in Redis), of how many keys, and why. */
  #lost = { units: 0, keys: 0, error: undefined as unknown };

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

  /**
   * Gives back `parts`' `give` units (best effort: a failure leaves them charged, counted
   * in {@link FetchCalls.takeLost}).
   */
  giveBack(parts: readonly FetchPart[], now: ScriptNow): void {
    this.queue(FetchMode.GiveBack, parts, now).catch((error: unknown) => {
      const lost = this.#lost;
      for (const part of parts) {
        if (part.give === 0) continue;
        lost.units += part.give;
        lost.keys++;
      }
      lost.error = error;
    });
  }

  /** The units (and keys) whose give-back failed since the last call, and the last error. */
  takeLost(): { units: number; keys: number; error: unknown } {
    const lost = this.#lost;
    this.#lost = { units: 0, keys: 0, error: undefined };
    return lost;
  }

  /** Gives back again what a fetch that never ran was to give back first. */
  giveBackAgain(parts: readonly FetchPart[], now: ScriptNow): void {
    for (const part of parts) {
      if (part.give > 0) this.giveBack([givePart(part, part.give, part.at, part.reset)], now);
    }
  }

  /**
   * Queues one request (its parts in one slot) for the next script call of `mode`; a fetch
   * call carries its deadline to the script; each call finishes within `timeoutMs`.
   */
  queue(mode: number, parts: readonly FetchPart[], now: ScriptNow): Promise<Answer> {
    const slot = this.cluster ? keySlot(parts[0]!.redisKey) : 0;
    const batch = this.openBatch(mode, slot) ?? this.open(new FetchBatch(mode, slot));
    return new Promise<Answer>((resolve, reject) => {
      this.join(batch, { resolve, reject, finished: false, keys: parts.length, parts, now });
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
    const at = call.now === '' ? batch.clock : call.now;
    const parts = call.parts.map((part, i) => {
      const values = offset + i * FETCH_STRIDE;
      return givePart(
        part,
        reply[values + FETCH_STRIDE - 1] as number,
        at,
        reply[values + 3] as number,
      );
    });
    this.giveBack(parts, call.now);
  }
}
