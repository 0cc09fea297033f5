import { type Duration, parseDuration } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames, optionNames } from '../common/known-options.js';
import { integerAtLeast, positiveNumber } from '../common/validate.js';
import type { Algorithm, RefundResult, ReserveResult, State, StepResult } from './algorithm.js';
import type { Decision } from './decision.js';
import { divide, type Fraction, toFraction } from './rational.js';

/**
 * The longest refill time from empty (tolerance, burst x T) a GCRA may have, in ms: 5e13 ms,
 * about 1584 years. The theoretical arrival time (now + at most this) then stays below
 * 1e14 ms until the year 3554, which the Lua twin relies on (it stores some TATs as whole
 * µs, always >= 1e14, and tells them apart from ms by size).
 */
export const MAX_TOLERANCE_MS = 5e13;

/**
 * The one engine behind `gcra`, `cellThrottle`, `leakyBucket` and `tokenBucket`: the
 * Generic Cell Rate Algorithm with redis-cell's arithmetic (brandur/redis-cell
 * `CL.THROTTLE`), kept exact for sub-millisecond emission intervals.
 *
 * Time inside is counted in **ticks** of `1/ticksPerMs` ms, chosen so that the emission
 * interval T is a whole number of ticks (`T = intervalTicks / ticksPerMs` ms). The state is
 * the theoretical arrival time (TAT) in ms since the Unix epoch; it is read back onto the
 * tick grid, so every comparison is integer arithmetic. That read-back is exact while
 * `ticksPerMs <= 2048` (any rate whose emission interval in ms has a denominator of at most
 * 2048, e.g. every rate up to 2048 per period, 3000/s, 10 000/s, 1 000 000/s).
 *
 * Lua twin parameters (`Algorithm.params`): `[intervalTicks, ticksPerMs, burst]`.
 */
export class GcraAlgorithm implements Algorithm {
  readonly kind = 'gcra' as const;
  /** Its `refund` takes a negative cost: a charge past the quota (see `Algorithm.debt`). */
  readonly debt = true;
  readonly limit: number;
  readonly params: readonly number[];
  readonly description: string;
  /** Emission interval T in ticks. */
  readonly intervalTicks: number;
  /** Ticks per millisecond (the denominator of T in ms). */
  readonly ticksPerMs: number;
  /** Delay variation tolerance (burst * T) in ticks. */
  readonly toleranceTicks: number;

  /**
   * @param burstOption - the option that set `burst`, named by the errors (`capacity` in
   *   leakyBucket and tokenBucket); `burstValue` the value they report.
   * @throws {@link SluiceConfigError} when the tolerance (burst x T) does not fit in 53 bits
   *   of ticks or exceeds {@link MAX_TOLERANCE_MS}.
   */
  constructor(
    emissionIntervalMs: Fraction,
    burst: number,
    description: string,
    burstOption = 'burst',
    burstValue: unknown = burst,
  ) {
    this.intervalTicks = emissionIntervalMs.num;
    this.ticksPerMs = emissionIntervalMs.den;
    this.limit = burst;
    this.toleranceTicks = burst * this.intervalTicks;
    if (!Number.isSafeInteger(this.toleranceTicks * 2)) {
      throw new SluiceConfigError(
        burstOption,
        burstValue,
        'a burst whose tolerance (burst x interval) fits in 53 bits',
      );
    }
    if (this.toleranceTicks > MAX_TOLERANCE_MS * this.ticksPerMs) {
      throw new SluiceConfigError(
        burstOption,
        burstValue,
        `a burst whose refill time from empty (burst x interval) is at most ${MAX_TOLERANCE_MS} ms (about 1584 years)`,
      );
    }
    this.params = [this.intervalTicks, this.ticksPerMs, burst];
    this.description = description;
  }

  /** Emission interval T in ms (may carry a fraction). */
  get emissionIntervalMs(): number {
    return this.intervalTicks / this.ticksPerMs;
  }

  step(state: State | undefined, nowMs: number, cost: number): StepResult {
    // TAT - now, in ticks, never negative (an idle key is a full bucket).
    let ahead = 0;
    if (state !== undefined && (state as number) > nowMs) {
      ahead = Math.round(((state as number) - nowMs) * this.ticksPerMs);
    }
    const decision = this.decide(ahead, cost);
    if (!decision.allowed || cost === 0) return { state: undefined, decision, ttlMs: 0 };
    const ttlMs = decision.resetAfterMs;
    return { state: nowMs + ttlMs, decision, ttlMs };
  }

  /**
   * Books `cost` units at their future slot (see `Algorithm.reserve`): TAT′ = max(TAT, now)
   * + cost·T, admitted when the wait TAT′ − τ − now is at most `maxWaitMs`; `delayMs` is
   * that wait (0 when it conforms now). The TS twin of `gcra_reserve` (@sluice/redis
   * reserve.lua.ts), the same arithmetic in ticks. A cost above the burst is never booked
   * (`retryAfterMs` -1, as `step`).
   *
   * @example
   * ```ts
   * const algorithm = gcra({ rate: 10, period: '1s', burst: 1 });
   * algorithm.reserve(undefined, 0, 1, 1000).delayMs; // 0
   * algorithm.reserve(100, 0, 1, 1000).delayMs; // 100: the next slot, 100 ms on
   * ```
   */
  reserve(state: State | undefined, nowMs: number, cost: number, maxWaitMs: number): ReserveResult {
    let ahead = 0;
    if (state !== undefined && (state as number) > nowMs) {
      ahead = Math.round(((state as number) - nowMs) * this.ticksPerMs);
    }
    const { decision, delayMs, booked } = this.reservation(ahead, cost, maxWaitMs);
    if (!booked) return { state: undefined, decision, ttlMs: 0, delayMs };
    const ttlMs = decision.resetAfterMs;
    return { state: nowMs + ttlMs, decision, ttlMs, delayMs };
  }

  /**
   * The reservation of `cost` units when the TAT is `aheadTicks` ticks after now (as
   * {@link GcraAlgorithm.decide}): `booked` when the units are admitted at once or within
   * `maxWaitMs` (then the TAT moves to `resetAfterMs` from now); `delayMs` the wait for the
   * slot. `reserve` decides with it, and so does the Redis reservation's reply decoder.
   * Booked iff `cost > 0`, `cost·T <= τ` and `ahead + cost·T − τ <= maxWaitMs·ticksPerMs`.
   */
  reservation(
    aheadTicks: number,
    cost: number,
    maxWaitMs: number,
  ): { decision: Decision; delayMs: number; booked: boolean } {
    const increment = cost * this.intervalTicks;
    const next = aheadTicks + increment;
    const waitTicks = next - this.toleranceTicks;
    if (cost === 0 || increment > this.toleranceTicks || waitTicks > maxWaitMs * this.ticksPerMs) {
      return { decision: this.decide(aheadTicks, cost), delayMs: 0, booked: false };
    }
    if (waitTicks <= 0)
      return { decision: this.decide(aheadTicks, cost), delayMs: 0, booked: true };
    const decision: Decision = {
      allowed: true,
      limit: this.limit,
      remaining: 0,
      retryAfterMs: 0,
      resetAfterMs: next / this.ticksPerMs,
      cost,
    };
    return { decision, delayMs: waitTicks / this.ticksPerMs, booked: true };
  }

  /**
   * The decision on a request of `cost` units when the TAT is `aheadTicks` ticks after now
   * (an integer >= 0; 0 for an idle key): GCRA's whole arithmetic, in ticks. `step` decides
   * with it, and so does the Lua twin's reply decoder (@sluice/redis), from the TAT the
   * script read.
   *
   * @example
   * ```ts
   * const algorithm = gcra({ rate: 10, period: '1s', burst: 2 });
   * algorithm.decide(0, 1); // { allowed: true, remaining: 1, resetAfterMs: 100, … }
   * ```
   */
  decide(aheadTicks: number, cost: number): Decision {
    const perMs = this.ticksPerMs;
    const interval = this.intervalTicks;
    const tolerance = this.toleranceTicks;
    const increment = cost * interval;
    const next = aheadTicks + increment;
    if (next <= tolerance) {
      return {
        allowed: true,
        limit: this.limit,
        remaining: Math.floor((tolerance - next) / interval),
        retryAfterMs: 0,
        resetAfterMs: next / perMs,
        cost,
      };
    }
    return {
      allowed: false,
      limit: this.limit,
      remaining: aheadTicks >= tolerance ? 0 : Math.floor((tolerance - aheadTicks) / interval),
      retryAfterMs: increment > tolerance ? -1 : (next - tolerance) / perMs,
      resetAfterMs: aheadTicks / perMs,
      cost,
    };
  }

  /** A denial tells the TAT: the key is full again `resetAfterMs` later. */
  denialState(decision: Decision, atMs: number): State {
    return atMs + decision.resetAfterMs;
  }

  /**
   * Gives back `cost` units: the TAT moves back by `cost` emission intervals; a TAT moved to
   * now or before is deleted (a full bucket). Exact while the key stays backlogged (TAT
   * ahead of now) since the charge, whatever was charged or given back in between; never
   * above full capacity. The TS twin of `gcra_refund` (@sluice/redis gcra.lua.ts), the
   * same arithmetic. `atMs` is not needed. A negative `cost` charges `-cost` units past
   * the quota (a debt the key drains at the emission interval).
   */
  refund(state: State | undefined, nowMs: number, cost: number, _atMs: number): RefundResult {
    let next: State | null | undefined;
    let ttlMs = 0;
    // A negative cost is a charge past the quota (a debt, `Limit.costAfter`): from now on
    // an idle key, as a decision charges.
    const from = cost < 0 ? Math.max((state as number | undefined) ?? nowMs, nowMs) : state;
    if (from !== undefined) {
      const value = (from as number) - (cost * this.intervalTicks) / this.ticksPerMs;
      if (value <= nowMs) next = null;
      else {
        next = value;
        ttlMs = value - nowMs;
      }
    }
    const after = next === null ? undefined : (next ?? state);
    return { state: next, decision: this.step(after, nowMs, 0).decision, ttlMs };
  }
}

const GCRA_OPTIONS = optionNames<GcraOptions>({ rate: true, period: true, burst: true });

/** Options of {@link gcra}. */
export interface GcraOptions {
  /** Requests admitted per `period` on average: a finite number > 0. */
  rate: number;
  /** The period of `rate`: ms (number) or a duration string (`'1s'`, `'1 minute'`). */
  period: Duration;
  /** Requests admitted back to back from idle: an integer >= 1. Default: `rate` (at least 1). */
  burst?: number;
}

/**
 * GCRA (Generic Cell Rate Algorithm), the default algorithm: `rate` requests per `period`,
 * up to `burst` back to back from idle. Emission interval T = period / rate, delay
 * variation tolerance = burst x T. Same arithmetic as redis-cell `CL.THROTTLE`.
 * State per key: one number (TAT).
 *
 * A `rate` that is not a short decimal (e.g. `100 / 3600`) is the simplest fraction within
 * 2^-50 of it (`toFraction`), so T stays exact.
 *
 * @throws {@link SluiceConfigError} for an unknown option name, a `rate` or `period` that is not > 0 and finite,
 *   an unparsable `period`, a `burst` that is not an integer >= 1, or a burst x T above
 *   {@link MAX_TOLERANCE_MS} (about 1584 years).
 */
export function gcra(options: GcraOptions): GcraAlgorithm {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an object { rate, period, burst? }');
  }
  checkOptionNames(options, GCRA_OPTIONS, 'gcra()');
  const rate = positiveNumber('rate', options.rate);
  const periodMs = parseDuration('period', options.period);
  const burst =
    options.burst === undefined
      ? Math.max(1, Math.floor(rate))
      : integerAtLeast('burst', options.burst, 1);
  const interval = divide(toFraction('period', periodMs), toFraction('rate', rate), 'rate', rate);
  return new GcraAlgorithm(interval, burst, `gcra(${rate} per ${periodMs} ms, burst ${burst})`);
}

/**
 * redis-cell's `CL.THROTTLE key max_burst count period` exactly:
 * `gcra({ burst: maxBurst + 1, rate: count, period: periodSeconds * 1000 })`.
 * The decision's `limit` is `maxBurst + 1`; {@link toCellReply} gives the command's reply.
 *
 * @param maxBurst - integer >= 0.
 * @param count - requests per period, a finite number > 0.
 * @param periodSeconds - the period in **seconds**, a finite number > 0.
 * @throws {@link SluiceConfigError} naming `maxBurst`, `count` or `periodSeconds`.
 */
export function cellThrottle(
  maxBurst: number,
  count: number,
  periodSeconds: number,
): GcraAlgorithm {
  integerAtLeast('maxBurst', maxBurst, 0);
  const rate = positiveNumber('count', count);
  const seconds = positiveNumber('periodSeconds', periodSeconds);
  const periodMs = divide(
    toFraction('periodSeconds', seconds),
    { num: 1, den: 1000 },
    'periodSeconds',
    periodSeconds,
  );
  const interval = divide(periodMs, toFraction('count', rate), 'count', count);
  return new GcraAlgorithm(
    interval,
    maxBurst + 1,
    `cellThrottle(max_burst ${maxBurst}, ${count} per ${periodSeconds} s)`,
    'maxBurst',
    maxBurst,
  );
}
