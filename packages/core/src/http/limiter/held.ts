import type { Decision } from '../../algorithms/decision.js';
import { describe } from '../../common/errors.js';
import type { CostAfter } from '../../limits/limit.js';
import type { StoreFailureLogger } from '../../store-failure/store-failure.js';
import { chargeTimeOf, type Store } from '../../stores/store.js';
import type { HttpMetrics } from '../metrics/metrics.js';
import type { OutcomeRule } from '../options/outcome.js';
import type { Charge } from './charge.js';

/**
 * A held charge: one a limiter made for a request on arrival, settled when the request ends
 * (a lease given back, an outcome-aware charge given back, a `costAfter` charge adjusted).
 */
export interface HeldCharge {
  /** The store the charge was made in. */
  store: Store;
  /** What was charged: key (key space and subject), algorithm and cost. */
  charge: Charge;
  /** When it was decided (the store's time when it keeps its own). */
  atMs: number;
  /** A concurrency lease: always given back when the request ends. */
  lease: boolean;
  /** The limit's name (the `sluice.limit` of the `sluice.leases` metric). */
  name: string;
}

/** `charge` held, admitted by `decision` at the limiter's `now`. */
export function holdCharge(
  store: Store,
  charge: Charge,
  decision: Decision,
  now: number,
  name: string,
): HeldCharge {
  return {
    store,
    charge,
    atMs: chargeTimeOf(decision) ?? now,
    lease: charge.algorithm.concurrent === true,
    name,
  };
}

/**
 * Settles the `held` charges once their request ended with `status` (`undefined`: the
 * connection closed first, a failure): gives back every lease and the charges `rule` skips
 * for that outcome, and settles each `Limit.costAfter` charge to the units its response
 * used (the difference to the upfront charge given back, or charged past the limit). Never throws
 * or rejects: a user callback or a store that fails leaves the charge in place (a lease
 * then expires by itself); a units function that fails is logged to `logger`.
 */
// biome-ignore lint/complexity/useMaxParams: perf: per finished response; positional, no options object per call
export async function settle<Req, Res>(
  held: readonly HeldCharge[],
  rule: OutcomeRule<Req, Res> | undefined,
  req: Req,
  res: Res,
  status: number | undefined,
  clock: () => number,
  logger: StoreFailureLogger = console,
): Promise<void> {
  let giveBack = false;
  if (rule !== undefined) {
    let success = false;
    if (status !== undefined) {
      try {
        success =
          rule.wasSuccessful === undefined ? status < 400 : await rule.wasSuccessful(req, res);
      } catch {
        success = false;
      }
    }
    giveBack = success ? rule.skipSuccessful : rule.skipFailed;
  }
  // What each charge gives back (a negative amount: charged past the limit); 0: nothing.
  const amounts: number[] = [];
  for (const h of held) {
    const { cost, costAfter } = h.charge;
    if (giveBack || h.lease) amounts.push(cost);
    else if (costAfter === undefined) amounts.push(0);
    else {
      const units = await unitsOf(costAfter, req, res, logger);
      amounts.push(units === undefined ? 0 : cost - units);
    }
  }
  const now = clock();
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < held.length; i++) {
    const h = held[i]!;
    const amount = amounts[i]!;
    if (amount === 0) continue;
    try {
      const { keySpace, subject, algorithm } = h.charge;
      const store = keySpace.store ?? h.store;
      const key = keySpace.store !== undefined ? subject : keySpace.prefix + subject;
      if (typeof store.refund === 'function') {
        calls.push(Promise.resolve(store.refund(key, algorithm, amount, now, h.atMs)));
      }
    } catch {
      // a store that cannot give back: the charge stays (a lease expires by itself)
    }
  }
  await Promise.allSettled(calls);
}

/**
 * The units a response used by `costAfter.units`, rounded up to a whole unit; `undefined`
 * (logged) when it throws, rejects or gives anything but a finite number >= 0: the upfront charge
 * then stays, never a crash and never a negative charge.
 */
async function unitsOf(
  costAfter: CostAfter,
  req: unknown,
  res: unknown,
  logger: StoreFailureLogger,
): Promise<number | undefined> {
  let units: unknown;
  try {
    units = await costAfter.units(req, res);
  } catch (error) {
    logger.warn('sluice: a costAfter units function failed; the upfront charge stays', error);
    return undefined;
  }
  if (typeof units !== 'number' || !Number.isFinite(units) || units < 0) {
    logger.warn(
      `sluice: a costAfter units function returned ${describe(units)}, not a finite number >= 0; the upfront charge stays`,
    );
    return undefined;
  }
  return Math.ceil(units);
}

/** The request whose held charges are settled, and how its binding reports the end. */
export interface FinishingRequest<Req, Res> {
  req: Req;
  res: Res;
  /** The adapter's `HttpBinding.onFinished`. */
  onFinished(req: Req, res: Res, done: (status: number | undefined) => Promise<void>): void;
  /** The adapter's `HttpBinding.callbackArgs`: what the outcome callbacks are given. */
  callbackArgs?(req: Req, res: Res): [request: unknown, response: unknown];
}

/**
 * Settles `held` ({@link settle}) when the request's response finishes or its connection
 * closes, counting its concurrency leases in the `sluice.leases` metric meanwhile.
 */
export function settleWhenFinished<Req, Res>(
  held: readonly HeldCharge[],
  request: FinishingRequest<Req, Res>,
  config: {
    outcome: OutcomeRule<Req, Res> | undefined;
    clock: () => number;
    logger: StoreFailureLogger;
  },
  metrics: HttpMetrics | undefined,
): void {
  const { req, res } = request;
  const { outcome, clock, logger } = config;
  if (metrics !== undefined) countLeases(metrics, held, +1);
  request.onFinished(req, res, (status) => {
    if (metrics !== undefined) countLeases(metrics, held, -1);
    // The promise is the binding's to keep alive (Workers' waitUntil); Node ones drop it.
    const [r, s] = request.callbackArgs?.(req, res) ?? [req, res];
    return settle(held, outcome as never, r, s, status, clock, logger);
  });
}

/** Counts `held`'s concurrency leases in the `sluice.leases` metric (`delta` ±1). */
function countLeases(metrics: HttpMetrics, held: readonly HeldCharge[], delta: number): void {
  for (const h of held) if (h.lease) metrics.lease(h.name, delta);
}
