import type { Algorithm } from '../algorithms/algorithm.js';
import { SluiceConfigError } from '../common/errors.js';
import { type Limit, type LimitAlgorithmFactory, limitAlgorithm } from './limit.js';
import type { ResolvedLimitEntry } from './throttle-registry.js';

/**
 * Checks that `algorithm` can settle `limit`'s `costAfter` (an algorithm with `debt`:
 * GCRA, the leaky and token buckets, the fixed window, calendar quotas).
 *
 * @throws {@link SluiceConfigError} naming `costAfter`, the algorithm and why not.
 */
export function checkCostAfter(limit: Limit, algorithm: Algorithm): void {
  if (limit.responseCost === undefined || algorithm.debt === true) return;
  throw new SluiceConfigError('costAfter', algorithm.description, '', {
    message:
      `sluice: invalid option "costAfter": the algorithm option gives ${algorithm.kind} ` +
      `(${algorithm.description}), and a ${algorithm.kind.replace('-', ' ')} cannot keep a charge ` +
      `past its limit (a response that used more than its upfront charge). Use gcra (the default, also ` +
      `leaky and token buckets), fixed-window or a calendar quota, or a fixed cost: .cost(n)`,
  });
}

/**
 * Checks that a request under `limit` can ever be admitted by `algorithm`: its cost (or its
 * `costAfter` upfront charge) is at most the algorithm's capacity (`Algorithm.limit`: the burst,
 * the window's limit). A cost above it would be denied forever.
 *
 * @throws {@link SluiceConfigError} naming `cost` (or `upfront` for `costAfter`).
 */
export function checkCostFits(limit: Limit, algorithm: Algorithm): void {
  const cost = limit.requestCost;
  if (cost <= algorithm.limit) return;
  const option = limit.responseCost === undefined ? 'cost' : 'upfront';
  throw new SluiceConfigError(option, cost, '', {
    message:
      `sluice: invalid option "${option}": each request costs ${cost} units but its limit runs ` +
      `on ${algorithm.description}, which holds at most ${algorithm.limit}: no request could ever ` +
      `be admitted. Lower the ${option} to at most ${algorithm.limit}, or raise the quota (or the burst)`,
  });
}

/**
 * Checks, when a middleware is created, every limit that does not depend on the request:
 * its algorithm can be built, can settle `costAfter`, and can ever admit its cost. What a
 * named limiter returns per request is checked per request (`costAfter`) or answered as a
 * request that can never pass (a cost above the quota: a 429 without `Retry-After`).
 *
 * @param entries - the `limit` option's entries; its `Limit`s (not named limiters) are checked.
 * @param factory - the `algorithm` option, as a factory.
 * @throws {@link SluiceConfigError} naming `algorithm`, `costAfter`, `cost` or `upfront`.
 */
export function checkStaticLimits(
  entries: readonly ResolvedLimitEntry[],
  factory: LimitAlgorithmFactory,
): void {
  for (const entry of entries) {
    if (entry.kind !== 'limit') continue;
    const limit = entry.limit;
    const algorithm = limitAlgorithm(limit, factory);
    if (algorithm === undefined) continue;
    checkCostAfter(limit, algorithm);
    checkCostFits(limit, algorithm);
  }
}
