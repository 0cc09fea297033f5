import type { Algorithm, RefundResult, State, StepResult } from './algorithm.js';
import { type CalendarPeriod, calendarEdges, calendarText, calendarWindow } from './calendar.js';
import { decide } from './decision.js';

/**
 * A calendar quota (`Limit.perCalendarDay` / `Week` / `Month`): a fixed window counter whose
 * windows are the local calendar's periods in a time zone, not spans from the first hit.
 * Up to `limit` units per window; a denial waits for the next edge (`retryAfterMs` and
 * `resetAfterMs` count to it). Denied requests consume nothing.
 *
 * State: `[windowEnd, count]`, as the fixed window's (windowEnd in ms since the Unix epoch is
 * the expiry). Lua twin parameters (`Algorithm.params`, of {@link CalendarWindowAlgorithm.at}):
 * `[quota, e0, e1, e2, e3]`, four edges around the caller's time (see `calendarEdges`).
 */
export class CalendarWindowAlgorithm implements Algorithm {
  /** The family: the Redis store runs the `calendar_window` Lua twin for it. */
  readonly kind = 'calendar-window' as const;
  /** Its `refund` takes a negative cost: a charge past the quota (see `Algorithm.debt`). */
  readonly debt = true;
  /** Units admitted per window; reported as `Decision.limit`. */
  readonly limit: number;
  /** The calendar period and time zone whose edges bound the windows. */
  readonly period: CalendarPeriod;
  /** For logs, e.g. `calendarWindow(100 per month@1/Europe/Paris)`. */
  readonly description: string;
  /**
   * `[quota, e0, e1, e2, e3]`: the four edges this instance was made for by
   * {@link CalendarWindowAlgorithm.at}; `[quota]` on the quota itself.
   */
  readonly params: readonly number[];
  /** The window of the last decision (`[start, end)`): most decisions fall in it. */
  #start = 0;
  #end = 0;
  /** The algorithm with the edges around the last call of {@link CalendarWindowAlgorithm.at}. */
  #around: CalendarWindowAlgorithm | undefined;
  #edges: readonly number[] | undefined;

  constructor(quota: number, period: CalendarPeriod, edges?: readonly number[]) {
    this.limit = quota;
    this.period = period;
    this.description = `calendarWindow(${quota} per ${calendarText(period)})`;
    this.#edges = edges;
    this.params = edges === undefined ? [quota] : [quota, ...edges];
  }

  /**
   * This quota with the four edges around `nowMs` as its Lua parameters: what a store that
   * decides elsewhere (RedisStore) runs. The same object until `nowMs` leaves the window,
   * so batches of one window share their parameters.
   */
  at(nowMs: number): CalendarWindowAlgorithm {
    const around = this.#around;
    if (around !== undefined && around.#edges![1]! <= nowMs && nowMs < around.#edges![2]!) {
      return around;
    }
    const made = new CalendarWindowAlgorithm(
      this.limit,
      this.period,
      calendarEdges(this.period, nowMs),
    );
    this.#around = made;
    return made;
  }

  /** The end of the window that holds `t` (ms since the Unix epoch). */
  windowEnd(t: number): number {
    if (this.#start <= t && t < this.#end) return this.#end;
    const [start, end] = calendarWindow(this.period, t);
    this.#start = start;
    this.#end = end;
    return end;
  }

  step(state: State | undefined, nowMs: number, cost: number): StepResult {
    const quota = this.limit;
    let end = nowMs;
    let count = 0;
    if (state !== undefined && (state as number[])[0]! > nowMs) {
      end = (state as number[])[0]!;
      count = (state as number[])[1]!;
    }
    if (count + cost <= quota) {
      if (cost === 0) {
        return {
          state: undefined,
          decision: decide(true, quota, quota - count, 0, end - nowMs, cost),
          ttlMs: 0,
        };
      }
      if (count === 0) end = this.windowEnd(nowMs);
      count += cost;
      const ttlMs = end - nowMs;
      return {
        state: [end, count],
        decision: decide(true, quota, quota - count, 0, ttlMs, cost),
        ttlMs,
      };
    }
    const retry = cost > quota ? -1 : end - nowMs;
    return {
      state: undefined,
      decision: decide(false, quota, Math.max(0, quota - count), retry, end - nowMs, cost),
      ttlMs: 0,
    };
  }

  /**
   * Gives back `cost` units charged at `atMs`: only from the window that held `atMs` while
   * it is still current; its count drops by `cost` (the key is deleted at 0). A negative
   * `cost` charges `-cost` units past the quota into the current window (a debt,
   * `Limit.costAfter`). The TS twin of `calendar_window_refund` (@sluice/redis).
   */
  refund(state: State | undefined, nowMs: number, cost: number, atMs: number): RefundResult {
    let next: State | null | undefined;
    let ttlMs = 0;
    const s = state as number[] | undefined;
    if (cost < 0) {
      // A charge past the limit (a debt, `Limit.costAfter`): into the current window, opening
      // one as a decision does.
      const live = s !== undefined && s[0]! > nowMs;
      const end = live ? s[0]! : this.windowEnd(nowMs);
      next = [end, (live ? s[1]! : 0) - cost];
      ttlMs = end - nowMs;
    } else if (s !== undefined && s[0]! > nowMs && this.windowEnd(atMs) === s[0]) {
      const count = s[1]! - cost;
      if (count <= 0) next = null;
      else {
        next = [s[0]!, count];
        ttlMs = s[0]! - nowMs;
      }
    }
    const after = next === null ? undefined : (next ?? state);
    return { state: next, decision: this.step(after, nowMs, 0).decision, ttlMs };
  }
}

/**
 * A calendar quota of `limit` units per local calendar `period` (see
 * {@link CalendarWindowAlgorithm}).
 */
export function calendarQuota(quota: number, period: CalendarPeriod): CalendarWindowAlgorithm {
  return new CalendarWindowAlgorithm(quota, period);
}
