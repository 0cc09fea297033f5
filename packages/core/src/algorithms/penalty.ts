import { type Duration, parseWholeMs } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import {
  type Algorithm,
  expiryOf,
  type RefundResult,
  type State,
  type StepResult,
} from './algorithm.js';
import { stepAtMost } from './at-most.js';
import type { Decision } from './decision.js';

/** Default `maxBlock` when `backoff` is given without one: 24 h. */
export const DEFAULT_MAX_BLOCK_MS = 24 * 60 * 60 * 1000;

/** Options of `Limit.blockFor` and {@link penalty}. */
export interface PenaltyOptions {
  /**
   * Each repeated offence while the offender is still watched (an offence within as long
   * again as its last block, after that block ended) multiplies the block by this: a finite
   * number >= 1. Default 1 (every block is `duration`).
   */
  backoff?: number;
  /**
   * The longest block: **ms** or a duration string (`'24h'`), at least the block. Default
   * `'24h'` with `backoff` (or the block when that is longer), else the block itself.
   */
  maxBlock?: Duration;
}

/** A penalty, parsed: every time in whole **ms**. */
export interface Penalty {
  /** The first block, ms (>= 1). */
  readonly blockMs: number;
  /** The factor of each repeated block (>= 1). */
  readonly backoff: number;
  /** The longest block, ms (>= blockMs). */
  readonly maxBlockMs: number;
}

/**
 * Parses a penalty: `blockFor(duration, options)`'s arguments.
 * @throws {@link SluiceConfigError} naming `blockFor`, `backoff` or `maxBlock`.
 */
export function parsePenalty(duration: Duration, options: PenaltyOptions = {}): Penalty {
  const blockMs = parseWholeMs('blockFor', duration);
  if (blockMs < 1) throw new SluiceConfigError('blockFor', duration, 'a duration of at least 1 ms');
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an object { backoff?, maxBlock? }');
  }
  const backoff = options.backoff ?? 1;
  if (typeof backoff !== 'number' || !Number.isFinite(backoff) || backoff < 1) {
    throw new SluiceConfigError('backoff', backoff, 'a finite number >= 1');
  }
  const maxBlockMs =
    options.maxBlock === undefined
      ? options.backoff === undefined
        ? blockMs
        : Math.max(blockMs, DEFAULT_MAX_BLOCK_MS)
      : parseWholeMs('maxBlock', options.maxBlock);
  if (maxBlockMs < blockMs) {
    throw new SluiceConfigError(
      'maxBlock',
      options.maxBlock,
      `a duration of at least the block (${blockMs} ms)`,
    );
  }
  return { blockMs, backoff, maxBlockMs };
}

/** The parts of a {@link PenaltyAlgorithm}'s state, at a given time. */
interface Parts {
  watchUntil: number;
  blockedUntil: number;
  lastBlock: number;
  inner: State | undefined;
}

/**
 * An algorithm with a penalty (`Limit.blockFor`): a request the inner algorithm
 * denies (one that could ever be admitted) blocks the key for the block time; every request
 * of the block is denied with `retryAfterMs` = what is left of it, `remaining` 0, and charges
 * nothing. A new offence while the key is still watched (until as long again as the last
 * block after it ended) blocks for `ceil(last x backoff)` ms, at most `maxBlockMs`.
 *
 * State: `[expiry, watchUntil, blockedUntil, lastBlockMs, tag, ...inner]` (tag 0: no inner
 * state, 1: a number at index 5, 2: the inner array from index 5). On Redis the twin keeps
 * the inner state where the inner twin does and `"<blockedUntil>,<watchUntil>,<last>"` in
 * `<key>!block` (same hash tag, same slot), one script deciding both atomically.
 * Lua twin parameters: `[blockMs, backoff, maxBlockMs, ...inner params]`.
 */
export class PenaltyAlgorithm implements Algorithm {
  readonly kind: Algorithm['kind'];
  readonly limit: number;
  readonly params: readonly number[];
  readonly description: string;
  readonly inner: Algorithm;
  /** The block time, backoff and longest block this algorithm applies. */
  readonly penalty: Penalty;

  constructor(inner: Algorithm, penalty: Penalty) {
    this.inner = inner;
    this.penalty = penalty;
    this.kind = inner.kind;
    this.limit = inner.limit;
    this.params = [penalty.blockMs, penalty.backoff, penalty.maxBlockMs, ...inner.params];
    this.description = `${inner.description} blocking ${penalty.blockMs} ms (x${penalty.backoff} up to ${penalty.maxBlockMs} ms)`;
  }

  /** A penalty's denial blocks its key: denied, whatever it asks, until the block ends. */
  denialState(): 'blocked' {
    return 'blocked';
  }

  step(state: State | undefined, nowMs: number, cost: number): StepResult {
    const p = this.#split(state, nowMs);
    if (p.blockedUntil > nowMs) {
      const peek = this.inner.step(p.inner, nowMs, 0).decision;
      return {
        state: undefined,
        decision: blocked(peek, p.blockedUntil - nowMs, cost),
        ttlMs: 0,
      };
    }
    const r = this.inner.step(p.inner, nowMs, cost);
    if (r.decision.allowed || r.decision.retryAfterMs < 0) {
      if (r.state === undefined) return { state: undefined, decision: r.decision, ttlMs: 0 };
      const next = join(p.watchUntil, p.blockedUntil, p.lastBlock, r.state, nowMs)!;
      return { state: next, decision: r.decision, ttlMs: expiryOf(next) - nowMs };
    }
    const { blockMs, backoff, maxBlockMs } = this.penalty;
    const block =
      p.watchUntil > nowMs && p.lastBlock > 0
        ? Math.min(maxBlockMs, Math.ceil(p.lastBlock * backoff))
        : blockMs;
    const until = nowMs + block;
    const next = join(until + block, until, block, p.inner, nowMs)!;
    return {
      state: next,
      decision: blocked(r.decision, block, cost),
      ttlMs: expiryOf(next) - nowMs,
    };
  }

  /**
   * Grants up to `max` units (`RateLimiter.consumeAtMost`): while blocked, none (the
   * block's denial with `cost` 0); else the inner algorithm's grant (`stepAtMost` of
   * at-most.ts). A grant of 0 is not an offence: it never starts or lengthens a block.
   * The TS twin of the penalty twin's at-most script (@sluice/redis at-most.lua.ts).
   */
  stepAtMost(state: State | undefined, nowMs: number, max: number): StepResult {
    const p = this.#split(state, nowMs);
    if (p.blockedUntil > nowMs) {
      const peek = this.inner.step(p.inner, nowMs, 0).decision;
      return { state: undefined, decision: blocked(peek, p.blockedUntil - nowMs, 0), ttlMs: 0 };
    }
    const r = stepAtMost(this.inner, p.inner, nowMs, max);
    if (r.state === undefined) return { state: undefined, decision: r.decision, ttlMs: 0 };
    const next = join(p.watchUntil, p.blockedUntil, p.lastBlock, r.state, nowMs)!;
    return { state: next, decision: r.decision, ttlMs: expiryOf(next) - nowMs };
  }

  /** Gives back through the inner algorithm's refund; a block stays as it is. */
  refund(state: State | undefined, nowMs: number, cost: number, atMs: number): RefundResult {
    const innerRefund = this.inner.refund;
    if (typeof innerRefund !== 'function') {
      throw new TypeError(`sluice: algorithm ${this.inner.description} has no refund`);
    }
    const p = this.#split(state, nowMs);
    const r = innerRefund.call(this.inner, p.inner, nowMs, cost, atMs);
    let next: State | null | undefined;
    if (r.state !== undefined) {
      next = join(p.watchUntil, p.blockedUntil, p.lastBlock, r.state ?? undefined, nowMs);
    }
    const after = next === null ? undefined : (next ?? state);
    return {
      state: next,
      decision: this.step(after, nowMs, 0).decision,
      ttlMs: next === null || next === undefined ? 0 : expiryOf(next) - nowMs,
    };
  }

  #split(state: State | undefined, nowMs: number): Parts {
    if (state === undefined)
      return { watchUntil: 0, blockedUntil: 0, lastBlock: 0, inner: undefined };
    const s = state as number[];
    const tag = s[4];
    let inner: State | undefined = tag === 1 ? s[5]! : tag === 2 ? s.slice(5) : undefined;
    if (inner !== undefined && expiryOf(inner) <= nowMs) inner = undefined;
    const watched = s[1]! > nowMs;
    return {
      watchUntil: watched ? s[1]! : 0,
      blockedUntil: watched ? s[2]! : 0,
      lastBlock: watched ? s[3]! : 0,
      inner,
    };
  }
}

/**
 * The denial of a blocked request (see {@link PenaltyAlgorithm}): `left` ms of block,
 * `d` the inner algorithm's decision (its peek, or the denial that started the block).
 * The Lua twin's decoder builds the same.
 */
export function blocked(d: Decision, left: number, cost: number): Decision {
  return {
    allowed: false,
    limit: d.limit,
    remaining: 0,
    retryAfterMs: left,
    resetAfterMs: Math.max(left, d.resetAfterMs),
    cost,
  };
}

/** The composite state; `null` when neither part is live. */
function join(
  watchUntil: number,
  blockedUntil: number,
  lastBlock: number,
  inner: State | undefined,
  nowMs: number,
): State | null {
  const live = watchUntil > nowMs;
  if (!live && inner === undefined) return null;
  const w = live ? watchUntil : 0;
  const expiry = Math.max(w, inner === undefined ? 0 : expiryOf(inner));
  const head = [expiry, w, live ? blockedUntil : 0, live ? lastBlock : 0];
  if (inner === undefined) return [...head, 0];
  if (typeof inner === 'number') return [...head, 1, inner];
  return [...head, 2, ...inner];
}

/**
 * `inner` with a penalty (see {@link PenaltyAlgorithm}): what `Limit.blockFor` builds.
 *
 * @example
 * penalty(gcra({ rate: 5, period: '1m' }), parsePenalty('15m', { backoff: 2, maxBlock: '24h' }))
 */
export function penalty(inner: Algorithm, options: Penalty): PenaltyAlgorithm {
  return new PenaltyAlgorithm(inner, options);
}
