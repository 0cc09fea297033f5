import type { LuaTwin } from '../twins/lua-common.js';
import type { LuaScript } from '../twins/lua-script.js';
import { type Batch, BatchEngine, type Call, type EngineOptions } from './engine.js';

/**
 * A multi-key script's answer for one call: whether its keys were charged, their values
 * (the script's stride each), and Redis `TIME` in ms.
 */
export interface Answer {
  charged: boolean;
  values: number[];
  clock: number;
}

/** A multi-key script and what its replies hold. */
export interface MultiKeyScript {
  script: LuaScript;
  /** The twins in the script's tables, in order (a key names its twin by index from 1). */
  twins: readonly LuaTwin[];
  /** Reply values per key. */
  stride: number;
}

/**
 * The paths whose script takes several requests of several keys each, every key naming its
 * twin by index (the all-or-nothing and prefetch scripts): their replies hold `stride`
 * values per key, then one status per request, then Redis `TIME`; a request's answer is
 * its status and its keys' values.
 */
export abstract class MultiKeyEngine<
  C extends Call<Answer>,
  B extends Batch<C>,
> extends BatchEngine<Answer, C, B> {
  readonly #script: LuaScript;
  readonly #stride: number;
  /** Each twin's index (from 1) in the script's tables. */
  readonly #index: Map<LuaTwin, number>;

  constructor(options: Omit<EngineOptions, 'statuses'>, script: MultiKeyScript) {
    super({ ...options, statuses: true });
    this.#script = script.script;
    this.#stride = script.stride;
    this.#index = new Map(script.twins.map((twin, i) => [twin, i + 1]));
  }

  /** `twin`'s index in the script's tables. */
  protected twinIndex(twin: LuaTwin): number {
    return this.#index.get(twin)!;
  }

  /** The script's argv: `keys`, then `args` (appended to `keys`, which is returned). */
  protected keysThen(keys: (string | number)[], args: (string | number)[]): (string | number)[] {
    for (const value of args) keys.push(value);
    return keys;
  }

  protected script(): LuaScript {
    return this.#script;
  }

  protected stride(): number {
    return this.#stride;
  }

  protected decode(batch: B, call: C, reply: unknown[], at: number, status: unknown): Answer {
    const end = at + call.keys * this.#stride;
    return { charged: status === 1, values: reply.slice(at, end) as number[], clock: batch.clock };
  }
}
