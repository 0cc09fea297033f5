import type { Algorithm } from '../../algorithms/algorithm.js';
import type { Decision } from '../../algorithms/decision.js';
import { type Penalty, penalty } from '../../algorithms/penalty.js';
import type { Limit } from '../../limits/limit.js';
import { limitAlgorithm } from '../../limits/limit.js';
import type { RequestView } from '../../limits/request-view.js';
import type { OperationEntry } from '../../operations/entry.js';
import type { Override } from '../../operations/snapshot.js';
import type { HttpConfig } from '../options/options.js';
import { type DenialAnswer, forbidBody } from '../verdict/denial.js';
import { ceilSeconds } from '../verdict/headers.js';
import { Verdict } from '../verdict/verdict.js';
import type { PlannedLimit } from './plan.js';

// What an HTTP limiter does once an operator entry (LimitOperations) matches a request: the
// 429 of a ban, the 403 of a deny, the limits under an override. snapshot.ts hands these to
// the limiters (registry.ts `httpOperations()`) when it loads: a limiter meets an entry only
// then, and a bundle without LimitOperations (nor enableOperations) leaves this out.

/** Overridden planned limits a plan keeps per override, at most (as its other caches). */
const MAX_CACHED_LIMITS = 1000;

/**
 * The verdict of a ban (429, `Retry-After` = what is left of it) or a deny (403, no
 * `Retry-After`), reported as the first planned limit `p` with nothing charged.
 */
export function entryVerdict(
  kind: 'ban' | 'deny',
  entry: OperationEntry,
  p: PlannedLimit,
  now: number,
  config: HttpConfig<unknown>,
): Verdict {
  const until = entry.until ?? Number.POSITIVE_INFINITY;
  const left = kind === 'deny' ? -1 : Math.max(1, until - now);
  const decision: Decision = {
    allowed: false,
    limit: p.maxAttempts,
    remaining: 0,
    retryAfterMs: left,
    resetAfterMs: Math.max(0, left),
    cost: p.cost,
  };
  return new Verdict(decision, undefined, kind === 'ban' ? config.headerStyles : [], [p], 0, now);
}

/** Answers `v` as a ban (the configured 429) or a deny (the 403 of {@link forbidBody}). */
export function answerEntry(
  kind: 'ban' | 'deny',
  view: RequestView,
  v: Verdict,
  answer: DenialAnswer,
  config: HttpConfig<unknown>,
): void {
  if (kind === 'ban') answer.deny(view, v);
  else forbidBody(config, view, v);
}

/**
 * `planned` under `overrides` (the first naming a limit, else the first naming none): an
 * overridden limit keeps its name, keys and algorithm family, with the override's quota.
 * A `blockFor` limit keeps its penalty around the new quota; a calendar quota keeps its
 * calendar and takes the override's count, by a named override only (a rate is no monthly
 * count); concurrency and adaptive limits are not rates and stay (`override()` refuses to
 * name one). `cache` and `algorithms` are the plan's.
 */
export function overriddenLimits(
  planned: PlannedLimit[],
  overrides: readonly Override[],
  cache: WeakMap<Override, Map<PlannedLimit, PlannedLimit>>,
  algorithms: Map<string, Algorithm>,
  config: HttpConfig<unknown>,
): PlannedLimit[] {
  let out: PlannedLimit[] | undefined;
  for (let i = 0; i < planned.length; i++) {
    const p = planned[i]!;
    if (p.concurrent || p.adaptiveLimit !== undefined) continue;
    const calendar = p.calendarAlgorithm;
    const o =
      overrides.find((x) => x.name === p.name) ??
      (calendar === undefined ? overrides.find((x) => x.name === undefined) : undefined);
    if (o === undefined) continue;
    let byPlanned = cache.get(o);
    if (byPlanned === undefined) {
      byPlanned = new Map();
      cache.set(o, byPlanned);
    }
    let q = byPlanned.get(p);
    if (q === undefined) {
      q =
        calendar === undefined
          ? rescaled(p, o.limit, algorithms, config)
          : recounted(p, o.limit, algorithms);
      if (byPlanned.size < MAX_CACHED_LIMITS) byPlanned.set(p, q);
    }
    out ??= planned.slice();
    out[i] = q;
  }
  return out ?? planned;
}

/** `p` at `limit`'s quota and period; a penalty (`blockFor`) kept around it. */
function rescaled(
  p: PlannedLimit,
  limit: Limit,
  algorithms: Map<string, Algorithm>,
  config: HttpConfig<unknown>,
): PlannedLimit {
  const quota = `${limit.maxAttempts}/${limit.periodMs}${p.kindKey}`;
  let algorithm = algorithms.get(quota);
  if (algorithm === undefined) {
    algorithm = limitAlgorithm(limit, config.algorithmFactory)!;
    const block = (p.algorithm as { penalty?: Penalty }).penalty;
    if (block !== undefined) algorithm = penalty(algorithm, block);
    algorithms.set(quota, algorithm);
  }
  return {
    ...p,
    algorithm,
    maxAttempts: limit.maxAttempts,
    periodMs: limit.periodMs,
    windowSeconds: ceilSeconds(limit.periodMs),
  };
}

/** A calendar quota `p` counting `limit.maxAttempts` per its own calendar period. */
function recounted(
  p: PlannedLimit,
  limit: Limit,
  algorithms: Map<string, Algorithm>,
): PlannedLimit {
  const quota = `${limit.maxAttempts}/${p.periodMs}${p.kindKey}`;
  let algorithm = algorithms.get(quota);
  if (algorithm === undefined) {
    algorithm = p.calendarAlgorithm!(limit.maxAttempts);
    algorithms.set(quota, algorithm);
  }
  return { ...p, algorithm, maxAttempts: limit.maxAttempts };
}

export const HTTP_OPERATIONS = { entryVerdict, answerEntry, overriddenLimits };

/** The type of {@link HTTP_OPERATIONS}. */
export type HttpOperations = typeof HTTP_OPERATIONS;
