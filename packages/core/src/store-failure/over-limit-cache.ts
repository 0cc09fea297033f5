import type { Algorithm, State } from '../algorithms/algorithm.js';
import type { Decision } from '../algorithms/decision.js';
import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames, optionNames } from '../common/known-options.js';

/** Options of the over-limit cache of a store that can fail (see {@link OverLimitCache}). */
export interface OverLimitCacheOptions {
  /**
   * The most keys remembered at once: an integer >= 1. Default
   * {@link DEFAULT_OVER_LIMIT_KEYS} (10 000, about 1.5 MB at most). When full, the key
   * remembered longest ago is forgotten (its next request goes to the store).
   */
  maxKeys?: number;
}

/** The default {@link OverLimitCacheOptions.maxKeys}: 10 000 keys. */
export const DEFAULT_OVER_LIMIT_KEYS = 10_000;

/**
 * Checks a limiter's `overLimitCache` option: `undefined` (the default cache), `false` (no
 * cache) or {@link OverLimitCacheOptions}.
 *
 * @returns the cache's `maxKeys`, or 0 for no cache.
 * @throws {@link SluiceConfigError} naming `overLimitCache`, `overLimitCache.maxKeys` or an
 *   unknown option name.
 */
export function checkOverLimitOptions(options: unknown): number {
  if (options === undefined) return DEFAULT_OVER_LIMIT_KEYS;
  if (options === false) return 0;
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('overLimitCache', options, 'false or an object { maxKeys? }');
  }
  checkOptionNames(
    options,
    optionNames<OverLimitCacheOptions>({ maxKeys: true }),
    'overLimitCache',
  );
  const { maxKeys = DEFAULT_OVER_LIMIT_KEYS } = options as OverLimitCacheOptions;
  if (typeof maxKeys !== 'number' || !Number.isSafeInteger(maxKeys) || maxKeys < 1) {
    throw new SluiceConfigError('overLimitCache.maxKeys', maxKeys, 'an integer >= 1');
  }
  return maxKeys;
}

/**
 * A known denial: what is remembered of one denied key, from the store's answer at the
 * limiter's time `at` (ms).
 */
interface KnownDenial {
  algorithm: Algorithm;
  at: number;
  /** The denial answers while `now - at` is below this (ms). */
  span: number;
  /**
   * GCRA (and leaky / token bucket) and fixed window: the key's state, rebuilt exactly from
   * the store's answer on the limiter's clock, so every cost is answered as the store would.
   */
  state: State | undefined;
  /**
   * Sliding window and sliding log (a cost-1 denial): its `retryAfterMs` at `at` is exactly
   * `num / den` (the algorithm's own division), so `(num - d x den) / den` is exactly the
   * store's answer `d` ms later.
   */
  num: number;
  den: number;
  /** Sliding kinds and penalties: `resetAfterMs` at `at`. */
  reset: number;
  /** A penalty's block (`Limit.blockFor`): every request is denied until `at + span`. */
  blocked: boolean;
}

/**
 * Keys known to be over their limit, remembered in process until their retry time (as
 * Envoy's rate limit service does with its local cache), so a store that can fail (Redis)
 * is not asked again about a key it has just denied, and an outage does not hand an
 * exhausted client a fresh in-memory bucket. Bounded: at most `maxKeys` keys, the one
 * remembered longest ago forgotten first; {@link OverLimitCache.forget} on `reset`.
 *
 * Only relative durations are used: a denial answered at the limiter's time `now` is
 * remembered until `now + retryAfterMs`, whatever clock the store decided on (Redis
 * `TIME`). Each answer is what the store would give at that time if no other process touched
 * the key (`retryAfterMs` and `resetAfterMs` shrink as time passes):
 *
 * - GCRA, leaky bucket, token bucket, fixed window: the key's state is rebuilt from the
 *   denial (GCRA's TAT = now + `resetAfterMs`; a window's end and count), and the algorithm
 *   decides on it, so any cost is exact. A request it would admit goes to the store. A
 *   denial with `retryAfterMs` -1 (cost > quota) is remembered until 1 unit would be
 *   admitted.
 * - A penalty (`Limit.blockFor`): a blocked key's denial is remembered until the block
 *   ends; every request (any cost, a peek too) is denied meanwhile, with what is left of
 *   the block, as the store would.
 * - Sliding window, sliding log: a denial of cost 1 is remembered; `remaining` is then 0
 *   and `resetAfterMs` known until the retry time, so costs 0 (a peek), 1 and > quota
 *   (-1) are exact. Other costs go to the store; during an outage
 *   (`outage = true`) they are denied with the cost-1 retry time, a lower bound.
 *
 * What the cache cannot see: a unit given back or a reset made by another process before
 * the retry time (the key stays denied here until then).
 */
export class OverLimitCache {
  /** The most denied keys remembered (option `maxKeys`). */
  readonly maxKeys: number;
  readonly #denials = new Map<string, KnownDenial>();

  /** @param maxKeys - an integer >= 1 (see {@link checkOverLimitOptions}). */
  constructor(maxKeys: number = DEFAULT_OVER_LIMIT_KEYS) {
    this.maxKeys = checkOverLimitOptions({ maxKeys });
  }

  /** How many keys are remembered (expired ones included until they are looked up). */
  get size(): number {
    return this.#denials.size;
  }

  /**
   * The store's answer for `key`, known without asking it, or `undefined`.
   *
   * @param nowMs - the limiter's time (ms).
   * @param outage - whether the store is failing: then a sliding key's denial also answers
   *   costs it does not know exactly (with a lower bound of `retryAfterMs`).
   */
  answer(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    outage: boolean,
  ): Decision | undefined {
    const denial = this.#denials.get(key);
    if (denial === undefined) return undefined;
    if (nowMs - denial.at >= denial.span) {
      this.#denials.delete(key);
      return undefined;
    }
    if (denial.algorithm === algorithm || sameAlgorithm(denial.algorithm, algorithm)) {
      const known = answerFrom(denial, algorithm, cost, nowMs, outage);
      if (known !== undefined) return known;
    }
    // Not known: the store decides, and may admit it. The denial would be stale for the calls
    // made before that answer arrives (which records what the key is then). During an
    // outage nothing reaches the store: the denial stays.
    if (!outage) this.#denials.delete(key);
    return undefined;
  }

  /**
   * Learns from the store's answer for `key` asked at the limiter's time `nowMs`: a denial
   * is remembered (replacing what was), an admission forgets the key.
   */
  record(key: string, algorithm: Algorithm, decision: Decision, nowMs: number): void {
    const denials = this.#denials;
    if (decision.allowed) {
      if (denials.size > 0) denials.delete(key);
      return;
    }
    denials.delete(key); // set() below puts it last: the newest
    // A concurrency limit's denial can end at any moment (a release in another process).
    if (algorithm.concurrent === true) return;
    const denial = denialOf(algorithm, decision, nowMs);
    if (denial === undefined) return;
    if (denials.size >= this.maxKeys) {
      const oldest = denials.keys().next();
      if (oldest.done !== true) denials.delete(oldest.value);
    }
    denials.set(key, denial);
  }

  /** Forgets `key` (on `reset`). */
  forget(key: string): void {
    this.#denials.delete(key);
  }

  /** Forgets every key. */
  clear(): void {
    this.#denials.clear();
  }
}

/** Same built-in class, kind and parameters: the same algorithm, even if built twice. */
function sameAlgorithm(a: Algorithm, b: Algorithm): boolean {
  if (a.constructor !== b.constructor || a.kind !== b.kind) return false;
  if (a.params.length !== b.params.length) return false;
  for (let i = 0; i < a.params.length; i++) if (a.params[i] !== b.params[i]) return false;
  return true;
}

/**
 * The largest denominator searched for a sliding window's fractional `retryAfterMs` (its
 * `prev` or `curr` count); a denial whose retry needs a larger one is not remembered.
 */
const MAX_DEN = 4096;

/** What a denial tells about its key, or `undefined` when it tells nothing useful. */
function denialOf(algorithm: Algorithm, d: Decision, at: number): KnownDenial | undefined {
  const known = algorithm.denialState?.(d, at);
  if (known === undefined) return undefined;
  if (known === 'blocked') {
    // A blocked key (the only denial of a penalty with a retry time): denied until it ends.
    if (!(d.retryAfterMs > 0)) return undefined;
    const span = d.retryAfterMs;
    return {
      algorithm,
      at,
      span,
      state: undefined,
      num: span,
      den: 1,
      reset: d.resetAfterMs,
      blocked: true,
    };
  }
  if (known === 'retry') {
    if (d.cost !== 1 || !(d.retryAfterMs > 0)) return undefined;
    const retry = d.retryAfterMs;
    let den = 1;
    // The smallest denominator giving this double: the algorithm's exact fraction, since two
    // fractions with denominators <= den differ by more than an ulp of `retry` here.
    while (Math.round(retry * den) / den !== retry) {
      if (++den > MAX_DEN || retry * den * den >= 2 ** 50) return undefined;
    }
    const num = Math.round(retry * den);
    return {
      algorithm,
      at,
      span: retry,
      state: undefined,
      num,
      den,
      reset: d.resetAfterMs,
      blocked: false,
    };
  }
  const state: State = known;
  const span =
    d.retryAfterMs >= 0 ? d.retryAfterMs : algorithm.step(state, at, 1).decision.retryAfterMs;
  if (!(span > 0)) return undefined;
  return { algorithm, at, span, state, num: 0, den: 1, reset: 0, blocked: false };
}

/** `denial`'s answer to a request on its key (same algorithm), or `undefined`. */
function answerFrom(
  denial: KnownDenial,
  algorithm: Algorithm,
  cost: number,
  nowMs: number,
  outage: boolean,
): Decision | undefined {
  if (denial.state !== undefined) {
    const { decision } = algorithm.step(denial.state, nowMs, cost);
    if (!decision.allowed || cost === 0) return decision;
    return undefined;
  }
  const quota = algorithm.limit;
  const elapsed = nowMs - denial.at;
  const resetAfterMs = denial.reset - elapsed;
  if (denial.blocked) {
    const retryAfterMs = denial.num - elapsed;
    return { allowed: false, limit: quota, remaining: 0, retryAfterMs, resetAfterMs, cost };
  }
  if (cost === 0) {
    return { allowed: true, limit: quota, remaining: 0, retryAfterMs: 0, resetAfterMs, cost };
  }
  if (cost !== 1 && cost <= quota && !outage) return undefined;
  const retryAfterMs = cost > quota ? -1 : (denial.num - elapsed * denial.den) / denial.den;
  return { allowed: false, limit: quota, remaining: 0, retryAfterMs, resetAfterMs, cost };
}
