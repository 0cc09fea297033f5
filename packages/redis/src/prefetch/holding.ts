import type { Decision } from '@sluice/core';
import { type Algorithm, withChargeTime } from '@sluice/core/store';
import type { LuaTwin } from '../twins/lua-common.js';
import { type FetchPart, givePart } from './calls.js';

export type { FetchPart } from './calls.js';

/**
 * Units of one key a process holds: taken from Redis by one fetch (charged there at
 * `at`), decided from in process until they run out or the holding ends, then the unused
 * ones given back.
 */
export interface Holding {
  readonly key: string;
  readonly redisKey: string;
  readonly twin: LuaTwin;
  readonly algorithm: Algorithm;
  /** Units fetched and not (or no longer) used. */
  held: number;
  /** Units used by admitted requests (what a local give-back may return). */
  used: number;
  /** Redis's `resetAfterMs` after the fetch's charge. */
  readonly resetAfterMs: number;
  /** The store caller's `nowMs` at the fetch. */
  readonly fetchedMs: number;
  /** Ends (on the caller's clock) at this `nowMs`. */
  readonly endsMs: number;
  /** Ends at this `performance.now()` at the latest (the give-back timer). */
  readonly deadline: number;
  /** When the fetch was charged (Redis TIME, or the client's now), for the give-back. */
  readonly at: number;
  /** The fetch reply's 4th value (the twins' refunds need it). */
  readonly reset: number;
  /** Given back, or being given back: its units are no longer used. */
  done: boolean;
}

/**
 * Whether `holding` is live at `nowMs` for `algorithm` and its held units cover `cost`: the
 * one test before a request is decided from held units (a cost of 0, a peek in a
 * multi-limit request, is covered by any live holding).
 */
export function covers(
  holding: Holding | undefined,
  algorithm: Algorithm,
  cost: number,
  nowMs: number,
): holding is Holding {
  return (
    holding !== undefined &&
    !holding.done &&
    holding.held >= cost &&
    holding.algorithm === algorithm &&
    holding.endsMs > nowMs
  );
}

/**
 * Takes `cost` held units of `holding` for an admitted request and decides it. Its
 * `remaining` is what this process still holds: other processes may have used what Redis
 * had left at the fetch, so only the units held here are sure (never more than Redis plus
 * this process's holding would admit).
 */
export function spend(holding: Holding, cost: number, nowMs: number): Decision {
  holding.held -= cost;
  holding.used += cost;
  return localDecision(holding, cost, nowMs);
}

/** An admitted request decided from `holding` (already charged `cost`); see {@link spend}. */
export function localDecision(holding: Holding, cost: number, nowMs: number): Decision {
  const elapsed = nowMs - holding.fetchedMs;
  return withChargeTime(
    {
      allowed: true,
      limit: holding.algorithm.limit,
      remaining: holding.held,
      retryAfterMs: 0,
      resetAfterMs:
        elapsed > 0 ? Math.max(0, holding.resetAfterMs - elapsed) : holding.resetAfterMs,
      cost,
    },
    holding.at,
  );
}

/**
 * How long a holding fetched at `at` (its decision `d`'s time) may be used: `ttlMs`, and for
 * the window algorithms no longer than the window it was charged in.
 */
export function holdingLife(ttlMs: number, algorithm: Algorithm, d: Decision, at: number): number {
  const base = algorithm.inner ?? algorithm;
  if (base.kind === 'fixed-window') return Math.min(ttlMs, d.resetAfterMs);
  if (base.kind === 'sliding-window') {
    const windowMs = base.params[1]!;
    return Math.min(ttlMs, windowMs - (((at % windowMs) + windowMs) % windowMs));
  }
  return ttlMs;
}

/**
 * Ends `holding` and builds the part of a script call that gives back what it holds (its
 * units, charged at `at`, with the reply's `reset`), asking `cost` units of `algorithm`
 * for the same key after it (0: a give-back alone). The one builder of a give-back.
 */
export function giveBackPart(holding: Holding, cost = 0): FetchPart {
  const give = holding.held;
  holding.held = 0;
  holding.done = true;
  return givePart(holding, give, holding.at, holding.reset, cost);
}
