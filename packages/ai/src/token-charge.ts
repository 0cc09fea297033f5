import type { Decision } from '@sluice/core';
import type { ProtocolLimiter, ProtocolVerdict } from '@sluice/core/protocol';
import type { AiMetrics } from './metrics.js';
import { costOf, type ModelPrice } from './price.js';
import { type UsageTokens, usageTokens } from './usage.js';

/** What a limit counts: tokens (all, input, output), requests, or money (micro-units). */
export type LimitKind = 'tokens' | 'requests' | 'input' | 'output' | 'budget';

/**
 * One call's upfront charge under every limit of a `tokenLimiter`, to settle to the
 * reported usage once the call is done (docs/guide/ai.md).
 */
export interface TokenCharge {
  /** `true` when every limit admitted the call (and charged it); `false`: none charged. */
  readonly allowed: boolean;
  /** The tokens charged now under the token limits (the estimate, capped); 0 when denied. */
  readonly upfront: number;
  /** ms until the call would be admitted: 0 when allowed; -1 when no wait would help. */
  readonly retryAfterMs: number;
  /**
   * One decision per limit, in the order `limit`, `requests`, `input`, `output`, `budget`
   * (each option's limits in the order given; `Limit.none()` left out).
   */
  readonly decisions: readonly Decision[];
  /**
   * Settles the charge to what the call used: each limit gives back what was charged past
   * it, or charges the excess as a debt the key works off before its next admission. A
   * `usage` that is no usage object (`undefined`) keeps the upfront charge (never 0). Does
   * nothing when denied, after `cancel()` or a first `settle`. Never rejects: a store failure
   * leaves the upfront charge.
   *
   * @param usage - the provider's `usage` (any shape `usageTokens` reads) or the whole response.
   * @returns each limit's state after settling (`[]` when nothing was settled).
   */
  settle(usage: unknown): Promise<readonly Decision[]>;
  /**
   * Gives the whole upfront charge back (the provider failed before any token), the request
   * too. Does nothing when denied or already settled or cancelled. Never rejects.
   */
  cancel(): Promise<void>;
}

/** What the front doors of this package read of a charge besides its public fields. */
export interface ChargeDetails {
  readonly kinds: readonly LimitKind[];
  readonly periods: readonly number[];
  readonly verdict: ProtocolVerdict;
}

const details = new WeakMap<TokenCharge, ChargeDetails>();

/** The kinds and periods of `charge`'s decisions (for `limitTokens`' headers). */
export function chargeDetails(charge: TokenCharge): ChargeDetails | undefined {
  return details.get(charge);
}

/** What settling needs to turn a usage into units per limit. */
export interface SettleContext {
  limiter: ProtocolLimiter;
  verdict: ProtocolVerdict;
  kinds: readonly LimitKind[];
  periods: readonly number[];
  upfront: number;
  price: ModelPrice | undefined;
  /** The request's model, for the metrics. */
  model: string | undefined;
  /** Where settled usage is counted (`undefined`: not recorded). */
  metrics: AiMetrics | undefined;
}

/** Units per limit for `u`: what each limit counts of the usage. */
function unitsOf(ctx: SettleContext, u: UsageTokens): number[] {
  return ctx.kinds.map((kind, i) => {
    switch (kind) {
      case 'tokens':
        return u.total;
      case 'input':
        return u.input;
      case 'output':
        return u.output;
      case 'budget':
        return ctx.price === undefined ? ctx.verdict.charges[i]!.cost : costOf(ctx.price, u);
      default:
        return ctx.verdict.charges[i]!.cost;
    }
  });
}

/** The {@link TokenCharge} of a verdict. */
export function tokenCharge(ctx: SettleContext): TokenCharge {
  const { verdict, limiter } = ctx;
  let done = !verdict.allowed || verdict.charges.length === 0;
  const run = async (units: readonly number[]): Promise<readonly Decision[]> => {
    try {
      return await limiter.settle(verdict, units);
    } catch {
      return []; // settle never rejects; a throwing store leaves the upfront charge
    }
  };
  const charge: TokenCharge = Object.freeze({
    allowed: verdict.allowed,
    upfront: verdict.allowed && verdict.charges.length > 0 ? ctx.upfront : 0,
    retryAfterMs: verdict.allowed ? 0 : verdict.retryAfterMs,
    decisions: verdict.decisions,
    settle(usage: unknown): Promise<readonly Decision[]> {
      if (done) return Promise.resolve([]);
      done = true;
      const u = usageTokens(usage);
      if (u === undefined) return Promise.resolve([]);
      ctx.metrics?.settled(ctx.model, u.input, u.output);
      return run(unitsOf(ctx, u));
    },
    async cancel(): Promise<void> {
      if (done) return;
      done = true;
      await run(ctx.kinds.map(() => 0));
    },
  });
  details.set(charge, { kinds: ctx.kinds, periods: ctx.periods, verdict });
  return charge;
}
