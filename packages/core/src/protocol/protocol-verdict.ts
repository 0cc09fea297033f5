import type { Algorithm } from '../algorithms/algorithm.js';
import type { Decision } from '../algorithms/decision.js';
import { SluiceConfigError } from '../common/errors.js';
import { mostRestrictive } from '../engine/restrictive.js';
import {
  type HeaderStyle,
  type HeadersOption,
  type LimitPolicy,
  pushPair,
  retryAfterSeconds,
  writeRateLimitHeaders,
} from '../http/verdict/headers.js';

/** What a {@link ProtocolVerdict} charged under one limit, to settle later. */
export interface ProtocolCharge {
  /** The full store key. */
  key: string;
  /** The algorithm that decided (and settles) the charge. */
  algorithm: Algorithm;
  /** Units charged. */
  cost: number;
  /** When it was decided (the store's time when it keeps its own), ms since the Unix epoch. */
  atMs: number;
  /** The limit's name (draft-8 policy name). */
  name: string;
  /** The limit's window in whole seconds, rounded up (draft-8 `w`). */
  windowSeconds: number;
  /** The limit's period in **ms** (its quota refills over it). */
  periodMs: number;
}

/**
 * What a {@link ProtocolLimiter} answers for one unit of work: admitted or not, every
 * limit's decision, the most restrictive one, and the charges to settle.
 */
export class ProtocolVerdict {
  /** `true` when every limit admitted the work (and charged it). */
  readonly allowed: boolean;
  /**
   * The most restrictive decision: a denial (one that can never pass, `retryAfterMs` -1,
   * before the longest wait), else the fewest remaining.
   */
  readonly decision: Decision;
  /** Every limit's decision, in order. */
  readonly decisions: readonly Decision[];
  /** What was charged under each limit (nothing when denied: all or nothing). */
  readonly charges: readonly ProtocolCharge[];
  /** Each limit's name, window and period, in the order of {@link ProtocolVerdict.decisions}. */
  readonly limits: readonly ProtocolCharge[];

  constructor(decisions: readonly Decision[], charges: readonly ProtocolCharge[]) {
    // The one "most restrictive" of every front door (engine/restrictive.ts): "never" (-1)
    // before any wait, as on HTTP.
    this.allowed = decisions.every((d) => d.allowed);
    this.decision = decisions[mostRestrictive(decisions)]!;
    this.decisions = decisions;
    this.charges = this.allowed ? charges : [];
    this.limits = charges;
  }

  /** A verdict with no limit to apply (every limit was `Limit.none()`). */
  static unlimited(cost: number): ProtocolVerdict {
    const d: Decision = {
      allowed: true,
      limit: Number.POSITIVE_INFINITY,
      remaining: Number.POSITIVE_INFINITY,
      retryAfterMs: 0,
      resetAfterMs: 0,
      cost,
    };
    return new ProtocolVerdict([d], []);
  }

  /** ms until the same work would be admitted: 0 when allowed; -1 when it never can be. */
  get retryAfterMs(): number {
    return this.decision.retryAfterMs;
  }

  /**
   * `Retry-After` in whole **seconds**, rounded up, at least 1 when denied; 0 when allowed;
   * -1 when waiting will never admit it (its cost is above the limit's capacity, or an
   * operator's deny): then no `Retry-After` is sent (see {@link ProtocolVerdict.retryAfterHeader}).
   * The HTTP middleware's rounding.
   */
  get retryAfterSeconds(): number {
    return this.allowed ? 0 : retryAfterSeconds(this.decision);
  }

  /**
   * The `Retry-After` value to send (whole seconds, at least 1), or `undefined` when none
   * is: when allowed, or when waiting will never admit it (RFC 9110 §10.2.3 has no value for
   * "never"; the HTTP middleware sends none then). What every front door writes.
   *
   * @example
   * ```ts
   * const ra = verdict.retryAfterHeader;
   * if (ra !== undefined) headers['Retry-After'] = ra;
   * ```
   */
  get retryAfterHeader(): string | undefined {
    const seconds = this.retryAfterSeconds;
    return this.allowed || seconds < 0 ? undefined : String(seconds);
  }

  /**
   * The rate-limit headers of `styles` for this verdict, as `[name, value]` pairs (plus
   * `Retry-After` when denied and waiting can admit it), exactly as the HTTP middleware writes them; draft-8+ policies
   * carry `qu="<unit>"` when `unit` is given (`'points'`).
   *
   * @param nowMs - the decision time, for `X-RateLimit-Reset` (epoch seconds).
   */
  headers(styles: readonly HeaderStyle[], nowMs: number, unit?: string): [string, string][] {
    const out: [string, string][] = [];
    if (this.limits.length > 0) {
      const policies: LimitPolicy[] = this.limits.map((l) => ({
        name: l.name,
        windowSeconds: l.windowSeconds,
        unit,
      }));
      const i = this.decisions.indexOf(this.decision);
      writeRateLimitHeaders(
        styles,
        policies[i] ?? policies[0]!,
        this.decision,
        policies,
        this.decisions,
        nowMs,
        out,
        pushPair,
      );
    }
    const retryAfter = this.retryAfterHeader;
    if (retryAfter !== undefined) out.push(['Retry-After', retryAfter]);
    return out;
  }
}

const STYLES: readonly HeaderStyle[] = ['legacy', 'draft-6', 'draft-7', 'draft-8'];
const DRAFT_8: Record<string, HeaderStyle> = {
  'draft-9': 'draft-8',
  'draft-10': 'draft-8',
  'draft-11': 'draft-8',
};

/**
 * The `headers` option of a protocol helper, checked: `false` (none), or one or more of
 * `'legacy'`, `'draft-6'`, `'draft-7'`, `'draft-8'` (`'draft-9'` to `'draft-11'` are draft-8's
 * syntax).
 *
 * @throws {@link SluiceConfigError} naming `headers` for anything else.
 */
export function parseHeaderStyles(option: HeadersOption): readonly HeaderStyle[] {
  if (option === false) return [];
  const named: readonly unknown[] | undefined =
    typeof option === 'string' ? [option] : Array.isArray(option) ? option : undefined;
  const styles = named?.map((s) => (typeof s === 'string' ? (DRAFT_8[s] ?? s) : s));
  if (styles === undefined || styles.some((s) => !STYLES.includes(s as HeaderStyle))) {
    throw new SluiceConfigError(
      'headers',
      option,
      `false, or one or more of ${[...STYLES, ...Object.keys(DRAFT_8)].join(', ')}`,
    );
  }
  return [...new Set(styles as HeaderStyle[])];
}
