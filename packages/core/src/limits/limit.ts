import type { AdaptiveAlgorithm } from '../adaptive/adaptive-gate.js';
import type { AdaptiveOptions } from '../adaptive/options.js';
import { type Algorithm, isAlgorithm } from '../algorithms/algorithm.js';
import {
  type CalendarDayOptions,
  type CalendarMonthOptions,
  type CalendarPeriod,
  type CalendarWeekOptions,
  calendarText,
} from '../algorithms/calendar.js';
import { concurrency, DEFAULT_LEASE_MS } from '../algorithms/concurrency.js';
import { gcra } from '../algorithms/gcra.js';
import type { Penalty, PenaltyOptions } from '../algorithms/penalty.js';
import { type Duration, parseWholeMs, wholeMs } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames } from '../common/known-options.js';
import { brandClass } from '../common/process-global.js';
import { integerAtLeast } from '../common/validate.js';

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * What a limit's name ({@link Limit.named}, the prefix of `'throttle:60,1,<prefix>'`, a
 * named limiter's name) may be: 1 to 128 ASCII letters, digits, `_`, `.` or `-`. Names go
 * as they are into keys and into the `RateLimit-Policy` header's policy names.
 */
export const LIMIT_NAME = /^[\w.-]{1,128}$/;

/** {@link LIMIT_NAME} in words, for errors. */
export const LIMIT_NAME_FORM =
  'a limit name: 1 to 128 ASCII letters, digits, "_", "." or "-" (no quote, backslash, space, ' +
  'control character or non-ASCII character)';

/** A limit's fields, as {@link makeLimit} takes them. */
export interface LimitFields {
  maxAttempts: number;
  periodMs: number;
  subject: string | undefined;
  requestCost: number;
  name: string | undefined;
  unlimited: boolean;
  penalty: Penalty | undefined;
  concurrent: boolean;
  calendar: CalendarPeriod | undefined;
  responseCost: CostAfter | undefined;
  /** Whether `.cost(n)` was called (so `.costAfter()` would drop it). */
  costGiven?: boolean;
  adaptive: AdaptiveAlgorithm | undefined;
  /** A calendar quota's algorithm, given its quota (set with `calendar`). */
  calendarAlgorithm?: ((maxAttempts: number) => Algorithm) | undefined;
}

/**
 * Where a calendar quota keeps its algorithm's builder: not enumerable, and the same key in
 * every copy of @sluice/core (its ESM and CommonJS builds).
 */
const CALENDAR_ALGORITHM = Symbol.for('sluice.v0.calendarAlgorithm');

/**
 * The fields of a plain limit, which each factory overrides where it differs: one request
 * costs 1; no subject, name, penalty, lease, calendar, response cost or adaptive control.
 */
export const PLAIN_LIMIT = {
  subject: undefined,
  requestCost: 1,
  name: undefined,
  unlimited: false,
  penalty: undefined,
  concurrent: false,
  calendar: undefined,
  responseCost: undefined,
  adaptive: undefined,
} as const satisfies Omit<LimitFields, 'maxAttempts' | 'periodMs'>;

/** Builds a `Limit` (its constructor is private): for limit-factories.ts. */
let construct: (fields: LimitFields) => Limit;

/** A copy of `limit` with `change` (its private `#with`): for limit-factories.ts. */
let derive: (limit: Limit, change: Partial<LimitFields>) => Limit;

/**
 * Where a penalty set by `blockFor` keeps the wrapper that applies it to an algorithm: not
 * enumerable (`limit.penalty` reads as `{ blockMs, backoff, maxBlockMs }`), and the same key
 * in every copy of @sluice/core. So limitAlgorithm needs no import of penalty.ts.
 */
export const PENALTY_ALGORITHM = Symbol.for('sluice.v0.penaltyAlgorithm');

/** A {@link Penalty} with its wrapper (see {@link PENALTY_ALGORITHM}). */
type WrappingPenalty = Penalty & { readonly [PENALTY_ALGORITHM]: (inner: Algorithm) => Algorithm };

/**
 * How a request's cost is settled from its response (`Limit.costAfter`): `upfront` units
 * charged on arrival, then the difference to `units(req, res)` when the response finishes.
 */
export interface CostAfter {
  /**
   * The units the request used, given the **framework's** request and response (Express
   * `req, res`; Fastify `request, reply`; Koa `ctx, ctx`); may be async.
   */
  // biome-ignore lint/suspicious/noExplicitAny: called with each framework's own request and response
  units: (req: any, res: any) => number | PromiseLike<number>;
  /** Units charged on arrival: an integer >= 0. */
  upfront: number;
  /** The unit's name for draft-8+ headers (`qu`), or `undefined` (requests). */
  unit: string | undefined;
}

/** Options of `Limit.costAfter`. */
export interface CostAfterOptions {
  /**
   * Units charged when the request arrives (the upfront charge): it is admitted only if
   * they fit.
   * @default 1
   */
  upfront?: number;
  /**
   * @deprecated `upfront`'s old name, accepted with one warning (`console.warn`) until the
   *   next minor release; beside `upfront` it is ignored.
   */
  reserve?: number;
  /**
   * The unit's name in draft-8+ headers' `RateLimit-Policy` (`qu="tokens"`): a token of
   * letters, digits and `-`.
   * @default none: draft-8's default unit, requests
   */
  unit?: string;
}

/**
 * One rate limit on a route: `maxAttempts` requests per `periodMs`, optionally for an
 * explicit subject (`.by(subject)`), a per-request cost (`.cost(n)`) and a name for its
 * keys (`.named(name)`).
 *
 * Source of semantics: Laravel `Illuminate\Cache\RateLimiting\Limit` (`perSecond`,
 * `perMinute`, `perMinutes`, `perHour`, `perDay`, `none`, `by`). `cost` and `named` are
 * sluice additions (`named` is the third argument of `'throttle:60,1,uploads'`, Laravel
 * `ThrottleRequests`' `$prefix`).
 *
 * A `Limit` is immutable (frozen): `.by()`, `.cost()` and `.named()` return a new
 * `Limit` and leave the receiver unchanged, so a `Limit` can be shared between routes.
 *
 * A `Limit` only states a quota; it does not choose an algorithm. Which algorithm enforces
 * it is the middleware's `algorithm` option (default: GCRA with `burst` = the quota); see
 * {@link limitAlgorithm}.
 *
 * ```ts
 * Limit.perMinute(60).by(req.userId ?? req.ip);   // 60 requests per 60 000 ms per subject
 * Limit.perMinutes(15, 100).cost(5);              // 100 units per 15 minutes, 5 per request
 * ```
 */
export class Limit {
  /** The quota: requests (units of cost) admitted per period. An integer >= 1, or `Infinity` when {@link Limit.unlimited}. */
  readonly maxAttempts: number;
  /** The period of the quota in **milliseconds** (whole ms >= 1). 60 000 for {@link Limit.none}. */
  readonly periodMs: number;
  /**
   * The subject given with {@link Limit.by} (numbers are converted with `String(n)`), or
   * `undefined`: the middleware then derives the subject itself (the user id when there
   * is one, else the client IP, IPv6 grouped by /64).
   */
  readonly subject: string | undefined;
  /** Units each request takes from the quota (set with {@link Limit.cost}): an integer >= 0. Default 1. */
  readonly requestCost: number;
  /**
   * The limit's name (set with {@link Limit.named}; `'uploads'` in `'throttle:60,1,uploads'`;
   * a named limiter's name), or `undefined`. Keys are `<prefix>:<limit name>:<route>:<subject>`,
   * and draft-8 headers call the policy by it.
   */
  readonly name: string | undefined;
  /** `true` only for {@link Limit.none}: the limit never denies and needs no algorithm or store. */
  readonly unlimited: boolean;
  /** The penalty set with {@link Limit.blockFor} (times in ms), or `undefined`. */
  readonly penalty: Penalty | undefined;
  /**
   * `true` for {@link Limit.concurrent}: `maxAttempts` requests in flight at once, leases
   * expiring after `periodMs` (the lease time), instead of requests per period.
   */
  readonly concurrent: boolean;
  /**
   * The calendar period of a calendar quota ({@link Limit.perCalendarDay},
   * {@link Limit.perCalendarWeek}, {@link Limit.perCalendarMonth}), or `undefined`. Its
   * `periodMs` is then the period's nominal length (1, 7 or 31 days): the real windows run
   * from edge to edge of the local calendar.
   */
  readonly calendar: CalendarPeriod | undefined;
  /** How the cost is settled from the response (set with {@link Limit.costAfter}), or `undefined`. */
  readonly responseCost: CostAfter | undefined;
  /** Whether {@link Limit.cost} was called: {@link Limit.costAfter} then refuses to drop it. */
  private readonly costGiven: boolean;
  /**
   * The per-process limit of {@link Limit.adaptive} (its controller is
   * `adaptive.controller`: `limit`, `inFlight`), or `undefined`.
   */
  readonly adaptive: AdaptiveAlgorithm | undefined;

  private constructor(fields: LimitFields) {
    this.maxAttempts = fields.maxAttempts;
    this.periodMs = fields.periodMs;
    this.subject = fields.subject;
    this.requestCost = fields.requestCost;
    this.name = fields.name;
    this.unlimited = fields.unlimited;
    this.penalty = fields.penalty;
    this.concurrent = fields.concurrent;
    this.calendar = fields.calendar;
    this.responseCost = fields.responseCost;
    this.costGiven = fields.costGiven === true;
    this.adaptive = fields.adaptive;
    if (fields.calendarAlgorithm !== undefined) {
      Object.defineProperty(this, CALENDAR_ALGORITHM, { value: fields.calendarAlgorithm });
    }
    Object.freeze(this);
  }

  static {
    construct = (fields) => new Limit(fields);
    derive = (limit, change) => limit.#with(change);
  }

  /**
   * `maxAttempts` requests per `period`.
   *
   * @param maxAttempts - an integer >= 1.
   * @param period - **milliseconds** (a whole number >= 1) or a duration string (`'1s'`,
   *   `'15m'`, `'1 hour'`; see `parseDuration`).
   * @throws {@link SluiceConfigError} naming `maxAttempts` or `period`.
   */
  static per(maxAttempts: number, period: Duration): Limit {
    const quota = integerAtLeast('maxAttempts', maxAttempts, 1);
    return Limit.#make(quota, parseWholeMs('period', period));
  }

  /**
   * `maxAttempts` requests per `decaySeconds` **seconds** (default 1).
   * Laravel `Limit::perSecond($maxAttempts, $decaySeconds = 1)`.
   * @throws {@link SluiceConfigError} naming `maxAttempts` or `decaySeconds` (integers >= 1).
   */
  static perSecond(maxAttempts: number, decaySeconds = 1): Limit {
    return Limit.#scaled(maxAttempts, 'decaySeconds', decaySeconds, SECOND_MS);
  }

  /**
   * `maxAttempts` requests per `decayMinutes` **minutes** (default 1).
   * Laravel `Limit::perMinute($maxAttempts, $decayMinutes = 1)`.
   * @throws {@link SluiceConfigError} naming `maxAttempts` or `decayMinutes` (integers >= 1).
   */
  static perMinute(maxAttempts: number, decayMinutes = 1): Limit {
    return Limit.#scaled(maxAttempts, 'decayMinutes', decayMinutes, MINUTE_MS);
  }

  /**
   * `maxAttempts` requests per `decayMinutes` **minutes**. Note the argument order, which
   * is Laravel's: `Limit::perMinutes($decayMinutes, $maxAttempts)`.
   * @throws {@link SluiceConfigError} naming `decayMinutes` or `maxAttempts` (integers >= 1).
   */
  static perMinutes(decayMinutes: number, maxAttempts: number): Limit {
    return Limit.#scaled(maxAttempts, 'decayMinutes', decayMinutes, MINUTE_MS);
  }

  /**
   * `maxAttempts` requests per `decayHours` **hours** (default 1).
   * Laravel `Limit::perHour($maxAttempts, $decayHours = 1)`.
   * @throws {@link SluiceConfigError} naming `maxAttempts` or `decayHours` (integers >= 1).
   */
  static perHour(maxAttempts: number, decayHours = 1): Limit {
    return Limit.#scaled(maxAttempts, 'decayHours', decayHours, HOUR_MS);
  }

  /**
   * `maxAttempts` requests per `decayDays` **days** (default 1).
   * Laravel `Limit::perDay($maxAttempts, $decayDays = 1)`.
   * @throws {@link SluiceConfigError} naming `maxAttempts` or `decayDays` (integers >= 1).
   */
  static perDay(maxAttempts: number, decayDays = 1): Limit {
    return Limit.#scaled(maxAttempts, 'decayDays', decayDays, DAY_MS);
  }

  /**
   * A limit that never denies (`unlimited: true`, `maxAttempts: Infinity`,
   * `periodMs: 60 000`). Laravel `Limit::none()` (`Unlimited`). Use it in a named limiter
   * to exempt some requests, e.g. `req.userId === 'admin' ? Limit.none() : Limit.perMinute(60)`.
   */
  static none(): Limit {
    noneLimit ??= new Limit({
      maxAttempts: Number.POSITIVE_INFINITY,
      periodMs: MINUTE_MS,
      ...PLAIN_LIMIT,
      unlimited: true,
    });
    return noneLimit;
  }

  // perCalendarDay, perCalendarWeek, perCalendarMonth and adaptive are defined in
  // limit-factories.ts, on the `Limit` that @sluice/core exports: a bundle that builds no
  // calendar quota and no adaptive limit leaves out their code (and luxon's loader).

  /**
   * `maxAttempts` requests per calendar day in `timeZone`: a fixed window from local
   * midnight to the next local midnight (23 or 25 hours on a DST change; a day whose
   * midnight does not exist starts at its first instant). Denied requests wait for the next
   * edge: `Retry-After` and `X-RateLimit-Reset` count to it, so a request denied at 23:59:59
   * local gets `Retry-After: 1`. The same edges on the memory store and on Redis. No peer
   * has calendar quotas (Kong and Envoy count fixed spans from the first request).
   *
   * @param maxAttempts - an integer >= 1.
   * @param options - `timeZone`: an IANA zone, default `'UTC'`.
   * @throws {@link SluiceConfigError} naming `maxAttempts`, `timeZone` or an unknown option.
   * @example Limit.perCalendarDay(1000, { timeZone: 'Europe/Paris' })
   */
  declare static perCalendarDay: (maxAttempts: number, options?: CalendarDayOptions) => Limit;

  /**
   * `maxAttempts` requests per calendar week in `timeZone`, from local midnight of
   * `weekStart` (ISO numbering, Monday = 1, the default) to the next one. Edges, headers and
   * `Retry-After` as {@link Limit.perCalendarDay}.
   *
   * @param options - `timeZone` (default `'UTC'`), `weekStart` 1–7 (default 1, Monday).
   * @throws {@link SluiceConfigError} naming `maxAttempts`, `timeZone`, `weekStart` or an
   *   unknown option.
   * @example Limit.perCalendarWeek(5000, { timeZone: 'America/New_York', weekStart: 7 })
   */
  declare static perCalendarWeek: (maxAttempts: number, options?: CalendarWeekOptions) => Limit;

  /**
   * `maxAttempts` requests per calendar month in `timeZone`, from local midnight of
   * `anchorDay` to the same day of the next month, the anchor clamped to a month's last day
   * as billing anchors are (anchor 31: Jan 31 → Feb 28 or 29 → Mar 31). Edges, headers and
   * `Retry-After` as {@link Limit.perCalendarDay}.
   *
   * @param options - `timeZone` (default `'UTC'`), `anchorDay` 1–31 (default 1).
   * @throws {@link SluiceConfigError} naming `maxAttempts`, `timeZone`, `anchorDay` or an
   *   unknown option.
   * @example Limit.perCalendarMonth(100_000, { timeZone: 'Asia/Kathmandu', anchorDay: 15 })
   */
  declare static perCalendarMonth: (maxAttempts: number, options?: CalendarMonthOptions) => Limit;

  /**
   * A concurrency limit (Stripe's concurrency limiter, GitHub's concurrent
   * requests): at most `maxInFlight` requests per subject in flight at once. Each request
   * takes a lease when it starts, released when its response finishes or its connection
   * closes; a lease nobody releases (a crashed server) expires `leaseMs` after it was taken.
   * Works beside time-based limits in one array (all or nothing). Its default name is
   * `concurrent`; draft-8+ headers describe it as `"concurrent";q=<n>;qu="concurrent-requests"`;
   * a denial answers 429 with `Retry-After: 1`.
   *
   * @param maxInFlight - an integer >= 1.
   * @param options - `leaseMs`: **ms** or a duration string, default 60 s.
   * @throws {@link SluiceConfigError} naming `maxInFlight` or `leaseMs`.
   * @example Limit.concurrent(2).by(`user:${id}`).named('export')
   */
  static concurrent(maxInFlight: number, options: { leaseMs?: Duration } = {}): Limit {
    const n = integerAtLeast('maxInFlight', maxInFlight, 1);
    if (options === null || typeof options !== 'object') {
      throw new SluiceConfigError('options', options, 'an object { leaseMs? }');
    }
    const leaseMs = parseWholeMs('leaseMs', options.leaseMs ?? DEFAULT_LEASE_MS);
    if (leaseMs < 1) throw new SluiceConfigError('leaseMs', options.leaseMs, 'at least 1 ms');
    return new Limit({
      maxAttempts: n,
      periodMs: leaseMs,
      ...PLAIN_LIMIT,
      concurrent: true,
    });
  }

  /**
   * An adaptive concurrency limit: at most `limit` requests in flight in **this process**,
   * the limit following the measured latency (Netflix concurrency-limits' Gradient2 by
   * default, or AIMD), sampled per window (`window`, default 100 ms) plus the injected
   * event-loop delay (`loopDelay`; the Node adapters pass `perf_hooks`'s). A request that
   * finds it full gets **503** with `Retry-After: 1` (the server is overloaded, the client
   * is not over a quota); with `priority`, `'sheddable'` requests are shed first. Its slot
   * is given back when the response finishes or the connection closes. Not shared across
   * processes and not keyed by subject: each process measures its own latency. Default name
   * `adaptive`; draft-8+ headers describe it as `"adaptive";q=<current limit>;qu="concurrent-requests"`.
   * Avoids Envoy adaptive concurrency's known failures (no probing, an empty window moves
   * nothing, the baseline does not ratchet under load): see the Adaptive concurrency guide.
   *
   * @param options - {@link AdaptiveOptions}: `algorithm` (`'gradient2'`), `min` (1), `max`
   *   (1000), `initial` (20, clamped), `window` (100 ms), `minSamples` (10), `tolerance`
   *   (1.1), `queueSize` (0.5), `smoothing` (0.2), `drift` (0.05), `backoffRatio` (0.9),
   *   `timeout` ('5s'), `priority`, `loopDelay`.
   * @throws {@link SluiceConfigError} naming the option: `min` > `max`, `initial` outside
   *   `[min, max]`, an unknown `algorithm`, unknown option names (all in one message).
   * @example Limit.adaptive({ max: 200, priority: (req) => (req.path === '/health' ? 'critical' : 'default') })
   */
  declare static adaptive: <Req = unknown>(options?: AdaptiveOptions<Req>) => Limit;

  /**
   * The same limit for an explicit subject (Laravel `Limit::by($key)`), replacing the
   * middleware's default subject (user id, else client IP) and the route: every route using
   * this limit shares the subject's bucket.
   *
   * @param subject - a string (any, `''` included) or a finite number (converted with `String`).
   * @returns a new `Limit`; the receiver is unchanged. Read it back as {@link Limit.subject}.
   * @throws {@link SluiceConfigError} naming `subject` for any other value (e.g. `undefined`, `NaN`).
   * @example Limit.perMinute(60).by(`user:${id}`)
   */
  by(subject: string | number): Limit {
    if (this.adaptive !== undefined) {
      throw new SluiceConfigError('by', subject, 'a keyed limit (Limit.adaptive is per process)');
    }
    let text: string;
    if (typeof subject === 'string') text = subject;
    else if (typeof subject === 'number' && Number.isFinite(subject)) text = String(subject);
    else throw new SluiceConfigError('subject', subject, 'a string or a finite number');
    return this.#with({ subject: text });
  }

  /**
   * The same limit with each request taking `units` from the quota (default 1; 0 makes
   * requests free). A request whose cost exceeds the quota can never be admitted.
   *
   * @param units - an integer >= 0.
   * @returns a new `Limit`; the receiver is unchanged. Read the value as {@link Limit.requestCost}.
   * @throws {@link SluiceConfigError} naming `cost` for anything else, or on a limit with
   *   {@link Limit.costAfter} (its arrival cost is the `upfront` option). A cost above the
   *   quota's capacity is refused when the middleware is created.
   */
  cost(units: number): Limit {
    if (this.adaptive !== undefined) {
      throw new SluiceConfigError(
        'cost',
        units,
        'a rate limit (Limit.adaptive counts requests in flight)',
      );
    }
    const requestCost = integerAtLeast('cost', units, 0);
    if (this.responseCost !== undefined) {
      throw costWithCostAfter('cost', units, requestCost);
    }
    return this.#with({ requestCost, costGiven: true });
  }

  /**
   * The same limit under a name (`'uploads'` in `'throttle:60,1,uploads'`; Laravel
   * `ThrottleRequests`' `$prefix`): the name is a segment of its keys, so limits with
   * different names count separately and limits with the same name and subject share a
   * bucket. Draft-8 headers call the policy by it.
   *
   * @param name - 1 to 128 characters from {@link LIMIT_NAME}'s set: ASCII letters, digits,
   *   `_`, `.` and `-` (`'api'`, `'login.5-per-60000ms'`). The name is written as is in
   *   keys and in the `RateLimit-Policy` header, so a quote, a backslash, a space, a control
   *   character or a character outside ASCII is refused here rather than forging a policy or
   *   failing every request of the route.
   * @returns a new `Limit`; the receiver is unchanged. Read it back as {@link Limit.name}.
   * @throws {@link SluiceConfigError} naming `name` for anything else.
   * @example Limit.perMinute(60).by(userId).named('api')
   */
  named(name: string): Limit {
    if (typeof name !== 'string' || !LIMIT_NAME.test(name)) {
      throw new SluiceConfigError('name', name, LIMIT_NAME_FORM);
    }
    return this.#with({ name });
  }

  // blockFor is defined in limit-factories.ts, as the calendar quotas are: a bundle that sets
  // no penalty leaves out the penalty algorithm.

  /**
   * The same limit with a penalty: a request this limit denies blocks the key
   * for `duration`; every request of the block is denied (429) with `Retry-After` = what is
   * left of it and charges nothing. With `backoff`, each repeated offence while the
   * offender is still watched (within as long again as its last block, after that block
   * ended) multiplies the block, up to `maxBlock`. Kept in the store with the limit's
   * state, so it is shared by every process on a Redis store, decided atomically there.
   *
   * @param duration - the first block: **ms** (a whole number >= 1) or a duration string.
   * @param options - `backoff` (a finite number >= 1, default 1), `maxBlock` (**ms** or a
   *   duration string >= the block; default `'24h'` with `backoff`, else the block).
   * @returns a new `Limit`; the receiver is unchanged. Read it back as {@link Limit.penalty}.
   * @throws {@link SluiceConfigError} naming `blockFor`, `backoff` or `maxBlock`, or
   *   `blockFor` on a concurrency limit.
   * @example Limit.perMinute(5).by(req.ip).blockFor('15m', { backoff: 2, maxBlock: '24h' })
   */
  declare blockFor: (duration: Duration, options?: PenaltyOptions) => Limit;

  /**
   * The same limit with each request's cost taken from its response: `upfront` units are
   * charged when the request arrives (it is admitted only if they fit), and when the
   * response finishes the difference to `units(req, res)` is settled, atomically on Redis:
   * given back exactly when smaller, charged when larger, past the quota if need be (a
   * debt: the key answers 429 with `Retry-After` = the time the debt takes to drain, or to
   * the window's end on a window algorithm). For APIs billed by what a response used: LLM
   * tokens, bytes, rows (Envoy's `hits_addend`, Kong's AI rate limiting). A `units` that
   * throws, rejects or gives something other than a finite number >= 0 is logged (the
   * `logger` option) and the upfront charge stays; a fraction is rounded up. Runs on GCRA
   * (the default, with leaky and token buckets), the fixed window and calendar quotas.
   *
   * @param units - `(req, res) => number | Promise<number>`, given the **framework's**
   *   request and response (Express `req, res`; Fastify `request, reply`; Koa `ctx, ctx`).
   * @param options - `upfront`: an integer >= 0, default 1 (`reserve`, its deprecated old
   *   name, is read with a warning); `unit`: the `qu` of draft-8+
   *   headers (`'tokens'`).
   * @returns a new `Limit`; its {@link Limit.requestCost} is `upfront`.
   * @throws {@link SluiceConfigError} naming `costAfter`, `upfront` or `unit`; naming
   *   `costAfter` after {@link Limit.cost} (which it would drop: give `upfront` instead), and,
   *   when the middleware is created, on a sliding window or log (they cannot keep a debt) or
   *   with an `upfront` above the quota's capacity.
   * @example Limit.perMinute(10_000).named('tokens').costAfter((req, res) => res.locals.tokens, { upfront: 500 })
   */
  costAfter<Req = unknown, Res = unknown>(
    units: (req: Req, res: Res) => number | PromiseLike<number>,
    options: CostAfterOptions = {},
  ): Limit {
    if (this.concurrent || this.unlimited) {
      throw new SluiceConfigError(
        'costAfter',
        units,
        'a rate limit (not a concurrency limit or Limit.none())',
      );
    }
    if (typeof units !== 'function') {
      throw new SluiceConfigError('costAfter', units, 'a function (req, res) => units');
    }
    if (options === null || typeof options !== 'object') {
      throw new SluiceConfigError('options', options, 'an object { upfront?, unit? }');
    }
    checkOptionNames(options, ['upfront', 'reserve', 'unit'], 'Limit#costAfter()');
    if (this.costGiven) {
      throw costWithCostAfter('costAfter', units, this.requestCost);
    }
    const upfront = integerAtLeast('upfront', upfrontOption(options) ?? 1, 0);
    const unit = options.unit;
    if (unit !== undefined && (typeof unit !== 'string' || !/^[A-Za-z][\w-]*$/.test(unit))) {
      throw new SluiceConfigError('unit', unit, "a token such as 'tokens'");
    }
    return this.#with({
      requestCost: upfront,
      responseCost: { units: units as CostAfter['units'], upfront, unit },
    });
  }

  /** For logs: e.g. `Limit(60 per 60000 ms, by "42", cost 1)` or `Limit(none)`. */
  toString(): string {
    if (this.unlimited) return 'Limit(none)';
    if (this.adaptive !== undefined) return `Limit(${this.adaptive.description})`;
    const parts = [
      this.concurrent
        ? `${this.maxAttempts} in flight, leases of ${this.periodMs} ms`
        : this.calendar !== undefined
          ? `${this.maxAttempts} per calendar ${calendarText(this.calendar)}`
          : `${this.maxAttempts} per ${this.periodMs} ms`,
    ];
    if (this.penalty !== undefined) parts.push(`blocking ${this.penalty.blockMs} ms`);
    if (this.name !== undefined) parts.push(`named ${JSON.stringify(this.name)}`);
    if (this.subject !== undefined) parts.push(`by ${JSON.stringify(this.subject)}`);
    parts.push(
      this.responseCost === undefined
        ? `cost ${this.requestCost}`
        : `cost after the response, upfront ${this.requestCost}`,
    );
    return `Limit(${parts.join(', ')})`;
  }

  #with(change: Partial<LimitFields>): Limit {
    return new Limit({
      maxAttempts: this.maxAttempts,
      periodMs: this.periodMs,
      subject: this.subject,
      requestCost: this.requestCost,
      name: this.name,
      unlimited: this.unlimited,
      penalty: this.penalty,
      concurrent: this.concurrent,
      calendar: this.calendar,
      responseCost: this.responseCost,
      costGiven: this.costGiven,
      adaptive: this.adaptive,
      calendarAlgorithm: calendarAlgorithmOf(this),
      ...change,
    });
  }

  static #scaled(maxAttempts: number, unitOption: string, units: number, unitMs: number): Limit {
    const quota = integerAtLeast('maxAttempts', maxAttempts, 1);
    const count = integerAtLeast(unitOption, units, 1);
    const periodMs = wholeMs(
      count * unitMs,
      unitOption,
      units,
      'a period that fits in 53 bits of ms',
    );
    return Limit.#make(quota, periodMs);
  }

  static #make(maxAttempts: number, periodMs: number): Limit {
    return new Limit({
      maxAttempts,
      periodMs,
      ...PLAIN_LIMIT,
    });
  }
}

// An ESM-built Limit is a Limit to the CommonJS build too (and the reverse).
brandClass(Limit, 'Limit');

/** A new `Limit` of `fields` (what `Limit`'s factories outside its class build with). */
export function makeLimit(fields: LimitFields): Limit {
  return construct(fields);
}

/** A copy of `limit` with `change`, as its own methods derive one: for limit-factories.ts. */
export function deriveLimit(limit: Limit, change: Partial<LimitFields>): Limit {
  return derive(limit, change);
}

/** A calendar quota's algorithm builder (given a quota), or `undefined` for any other limit. */
export function calendarAlgorithmOf(limit: Limit): LimitFields['calendarAlgorithm'] {
  return (limit as unknown as Record<symbol, LimitFields['calendarAlgorithm']>)[CALENDAR_ALGORITHM];
}

/** The shared {@link Limit.none} instance, built on first use. */
let noneLimit: Limit | undefined;

/** The quota handed to a {@link LimitAlgorithmFactory}: `limit` units per `periodMs` **ms**. */
export interface LimitQuota {
  /** Units admitted per period ({@link Limit.maxAttempts}): an integer >= 1. */
  limit: number;
  /** The period in **milliseconds** ({@link Limit.periodMs}): a whole number >= 1. */
  periodMs: number;
}

/**
 * Builds the algorithm that enforces a {@link Limit}'s quota: the middleware's `algorithm`
 * option. E.g. `({ limit, periodMs }) => fixedWindow({ limit, window: periodMs })` for
 * Laravel-exact fixed windows.
 */
export type LimitAlgorithmFactory = (quota: LimitQuota) => Algorithm;

/**
 * The default {@link LimitAlgorithmFactory}: GCRA with `rate = burst = limit` per `periodMs`
 * (a full quota may be spent back to back from idle, then it refills continuously).
 */
export const defaultLimitAlgorithm: LimitAlgorithmFactory = ({ limit, periodMs }) =>
  gcra({ rate: limit, period: periodMs, burst: limit });

/**
 * The algorithm that enforces `limit`: `factory({ limit: maxAttempts, periodMs })`, by
 * default {@link defaultLimitAlgorithm} (`gcra({ rate: maxAttempts, period: periodMs,
 * burst: maxAttempts })`: the quota may be used back to back). Returns `undefined` for {@link Limit.none} (nothing
 * to enforce). Builds a new algorithm on each call: call it once per limit at construction
 * where possible, or cache by `(maxAttempts, periodMs)`.
 *
 * @throws {@link SluiceConfigError} naming `limit` when `limit` is not a {@link Limit},
 *   naming `algorithm` when `factory` is not a function or returns something that is not an
 *   `Algorithm`; and whatever the factory throws (e.g. `SluiceConfigError` from `gcra`).
 */
export function limitAlgorithm(
  limit: Limit,
  factory: LimitAlgorithmFactory = defaultLimitAlgorithm,
): Algorithm | undefined {
  if (!(limit instanceof Limit)) {
    throw new SluiceConfigError('limit', limit, 'a Limit such as Limit.perMinute(60)');
  }
  if (typeof factory !== 'function') {
    throw new SluiceConfigError(
      'algorithm',
      factory,
      'a function ({ limit, periodMs }) => Algorithm',
    );
  }
  if (limit.unlimited) return undefined;
  if (limit.adaptive !== undefined) return limit.adaptive;
  if (limit.concurrent) return concurrency({ limit: limit.maxAttempts, leaseMs: limit.periodMs });
  // A calendar quota is a window of the calendar whatever the `algorithm` option says.
  if (limit.calendar !== undefined) return calendarAlgorithmOf(limit)!(limit.maxAttempts);
  const algorithm = factory({ limit: limit.maxAttempts, periodMs: limit.periodMs });
  if (!isAlgorithm(algorithm)) {
    throw new SluiceConfigError(
      'algorithm',
      algorithm,
      'the algorithm factory to return an Algorithm such as gcra({ rate, period })',
    );
  }
  const p = limit.penalty as WrappingPenalty | undefined;
  return p === undefined ? algorithm : p[PENALTY_ALGORITHM](algorithm);
}

let warnedReserve = false;

/** `costAfter`'s `upfront`, or (one warning per process) its deprecated old name `reserve`. */
function upfrontOption(o: CostAfterOptions): number | undefined {
  if (o.reserve !== undefined && !warnedReserve) {
    warnedReserve = true;
    console.warn('sluice: costAfter\'s "reserve" is now "upfront"');
  }
  return o.upfront ?? o.reserve;
}

/**
 * The error of `.cost(n)` with `.costAfter()` on one limit (either order): a costAfter limit
 * charges its upfront units on arrival, so the fixed cost is written as `upfront`.
 */
function costWithCostAfter(option: string, value: unknown, cost: number): SluiceConfigError {
  return new SluiceConfigError(option, value, '', {
    message:
      `sluice: invalid option "${option}": a costAfter limit charges its upfront units on arrival ` +
      `(default 1), then settles to the response's units: write ` +
      `.costAfter(units, { upfront: ${cost} }) instead of .cost(${cost})`,
  });
}
