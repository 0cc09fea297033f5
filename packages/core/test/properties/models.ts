// Reference models for the property tests, written from and not from the
// implementation: plain data, exact arithmetic, no ticks, no floats, no state encoding.
// Each model is mutable and is fed one request at a time, in time order.

/** An exact rational number on BigInt, always in lowest terms with a positive denominator. */
export class Ratio {
  readonly num: bigint;
  readonly den: bigint;

  constructor(num: bigint, den = 1n) {
    if (den === 0n) throw new RangeError('Ratio: zero denominator');
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    const g = gcd(num < 0n ? -num : num, den);
    this.num = num / g;
    this.den = den / g;
  }

  static of(value: number | bigint): Ratio {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw new RangeError(`Ratio.of: ${value} is not a safe integer`);
    }
    return new Ratio(BigInt(value));
  }

  add(o: Ratio): Ratio {
    return new Ratio(this.num * o.den + o.num * this.den, this.den * o.den);
  }

  sub(o: Ratio): Ratio {
    return new Ratio(this.num * o.den - o.num * this.den, this.den * o.den);
  }

  mul(o: Ratio | number): Ratio {
    const r = typeof o === 'number' ? Ratio.of(o) : o;
    return new Ratio(this.num * r.num, this.den * r.den);
  }

  div(o: Ratio | number): Ratio {
    const r = typeof o === 'number' ? Ratio.of(o) : o;
    return new Ratio(this.num * r.den, this.den * r.num);
  }

  cmp(o: Ratio): number {
    const l = this.num * o.den;
    const r = o.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }

  /** floor(this), as a bigint. */
  floor(): bigint {
    const q = this.num / this.den; // truncates toward zero
    return this.num < 0n && q * this.den !== this.num ? q - 1n : q;
  }

  /** ceil(this), as a bigint. */
  ceil(): bigint {
    return -new Ratio(-this.num, this.den).floor();
  }

  isZero(): boolean {
    return this.num === 0n;
  }

  /**
   * The double nearest to this value (IEEE division of two exactly represented integers is
   * correctly rounded), which is what an exact implementation must return.
   */
  toNumber(): number {
    const limit = BigInt(Number.MAX_SAFE_INTEGER);
    const abs = this.num < 0n ? -this.num : this.num;
    if (abs > limit || this.den > limit) {
      throw new RangeError(`Ratio.toNumber: ${this.num}/${this.den} is too large to convert`);
    }
    return Number(this.num) / Number(this.den);
  }

  toString(): string {
    return this.den === 1n ? `${this.num}` : `${this.num}/${this.den}`;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a === 0n ? 1n : a;
}

const ZERO = new Ratio(0n);

function maxRatio(a: Ratio, b: Ratio): Ratio {
  return a.cmp(b) >= 0 ? a : b;
}

/** A decimal such as 2.5 given exactly as digits / 10^scale. */
export interface Decimal {
  digits: number;
  scale: number;
}

export function decimalValue(d: Decimal): number {
  return d.digits / 10 ** d.scale;
}

export function decimalRatio(d: Decimal): Ratio {
  return new Ratio(BigInt(d.digits), 10n ** BigInt(d.scale));
}

/** A model's verdict; the times are exact (retryAfter `-1` = never). */
export interface ModelDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterMs: Ratio | -1;
  resetAfterMs: Ratio;
  cost: number;
}

export interface Model {
  readonly limit: number;
  /** Decides one request at `now` (ms), recording it when admitted. */
  step(now: number, cost: number): ModelDecision;
}

/**
 * GCRA by the virtual scheduling algorithm (ITU-T I.371), in exact rationals: emission
 * interval T, delay variation tolerance tau = burst x T, theoretical arrival time TAT.
 * A request of `cost` at t is conforming when max(TAT, t) + cost x T - t <= tau.
 */
export class GcraModel implements Model {
  readonly limit: number;
  readonly tau: Ratio;
  #tat: Ratio | undefined;

  /** @param T - the emission interval in ms, exact. */
  constructor(
    readonly T: Ratio,
    burst: number,
  ) {
    this.limit = burst;
    this.tau = T.mul(burst);
  }

  /** `rate` per `periodMs` (rate given exactly as a decimal): T = periodMs / rate. */
  static fromRate(rate: Decimal, periodMs: number, burst: number): GcraModel {
    return new GcraModel(Ratio.of(periodMs).div(decimalRatio(rate)), burst);
  }

  step(now: number, cost: number): ModelDecision {
    const t = Ratio.of(now);
    const base = this.#tat === undefined ? t : maxRatio(this.#tat, t);
    const newTat = base.add(this.T.mul(cost));
    const limit = this.limit;
    if (newTat.sub(t).cmp(this.tau) <= 0) {
      if (cost > 0) this.#tat = newTat;
      const remaining = Number(this.tau.sub(newTat.sub(t)).div(this.T).floor());
      return {
        allowed: true,
        limit,
        remaining,
        retryAfterMs: ZERO,
        resetAfterMs: newTat.sub(t),
        cost,
      };
    }
    const backlog = base.sub(t); // TAT - t, >= 0
    const left = this.tau.sub(backlog).div(this.T).floor();
    return {
      allowed: false,
      limit,
      remaining: left > 0n ? Number(left) : 0,
      // conforming once t' >= newTat - tau
      retryAfterMs: cost > limit ? -1 : newTat.sub(this.tau).sub(t),
      resetAfterMs: backlog,
      cost,
    };
  }
}

/**
 * Fixed window as count + start: a window opens at the first admitted request when none
 * is open and lasts `windowMs` ([start, start + windowMs)); at most `limit` units in it.
 */
export class FixedWindowModel implements Model {
  #start: number | undefined;
  #count = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  step(now: number, cost: number): ModelDecision {
    if (this.#start !== undefined && now >= this.#start + this.windowMs) {
      this.#start = undefined;
      this.#count = 0;
    }
    const limit = this.limit;
    const endIn = () => Ratio.of(this.#start === undefined ? 0 : this.#start + this.windowMs - now);
    if (this.#count + cost <= limit) {
      if (cost > 0) {
        if (this.#start === undefined) this.#start = now;
        this.#count += cost;
      }
      return {
        allowed: true,
        limit,
        remaining: limit - this.#count,
        retryAfterMs: ZERO,
        resetAfterMs: endIn(),
        cost,
      };
    }
    return {
      allowed: false,
      limit,
      remaining: limit - this.#count,
      // A denial with cost <= limit means a window is open; the next one starts empty.
      retryAfterMs: cost > limit ? -1 : endIn(),
      resetAfterMs: endIn(),
      cost,
    };
  }
}

/**
 * Sliding log as a plain list of admitted timestamps, one per unit of cost. An entry at
 * time e counts at t while t - windowMs < e.
 */
export class SlidingLogModel implements Model {
  #log: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Every admitted unit so far (for the window checks). */
  get entries(): readonly number[] {
    return this.#log;
  }

  step(now: number, cost: number): ModelDecision {
    const w = this.windowMs;
    const live = this.#log.filter((e) => e > now - w).sort((a, b) => a - b);
    const limit = this.limit;
    // Everything admitted so far leaves the window at (newest entry) + w.
    const resetOf = (entries: number[]) =>
      Ratio.of(entries.length === 0 ? 0 : Math.max(...entries) + w - now);
    if (live.length + cost <= limit) {
      for (let i = 0; i < cost; i++) this.#log.push(now);
      const after = this.#log.filter((e) => e > now - w);
      return {
        allowed: true,
        limit,
        remaining: limit - after.length,
        retryAfterMs: ZERO,
        resetAfterMs: resetOf(after),
        cost,
      };
    }
    let retry: Ratio | -1 = -1;
    if (cost <= limit) {
      // Wait until enough of the oldest entries have left: the first time t' at which
      // fewer than limit - cost + 1 entries remain live.
      const mustLeave = live.length + cost - limit;
      retry = Ratio.of(live[mustLeave - 1]! + w - now);
    }
    return {
      allowed: false,
      limit,
      remaining: limit - live.length,
      retryAfterMs: retry,
      resetAfterMs: resetOf(live),
      cost,
    };
  }
}

/**
 * Sliding-window counter: counters per aligned window [k x w, (k + 1) x w). At t the
 * estimate is previous x (w - (t - start)) / w + current; a request of `cost` is admitted
 * when estimate + cost <= limit.
 */
export class SlidingWindowModel implements Model {
  readonly #counts = new Map<number, number>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** The estimate at `now`, exact. */
  estimate(now: number): Ratio {
    const w = this.windowMs;
    const k = Math.floor(now / w);
    const prev = this.#counts.get(k - 1) ?? 0;
    const curr = this.#counts.get(k) ?? 0;
    const elapsed = now - k * w;
    return Ratio.of(prev * (w - elapsed))
      .div(w)
      .add(Ratio.of(curr));
  }

  step(now: number, cost: number): ModelDecision {
    const w = this.windowMs;
    const k = Math.floor(now / w);
    const limit = this.limit;
    const est = this.estimate(now);
    const curr = this.#counts.get(k) ?? 0;
    if (est.add(Ratio.of(cost)).cmp(Ratio.of(limit)) <= 0) {
      if (cost > 0) this.#counts.set(k, curr + cost);
      const remaining = Number(Ratio.of(limit).sub(est).sub(Ratio.of(cost)).floor());
      return {
        allowed: true,
        limit,
        remaining,
        retryAfterMs: ZERO,
        resetAfterMs: this.#resetAfter(now),
        cost,
      };
    }
    let retry: Ratio | -1 = -1;
    if (cost <= limit)
      retry = this.#firstTimeAtMost(now, Ratio.of(limit - cost)).sub(Ratio.of(now));
    const left = Ratio.of(limit).sub(est).floor();
    return {
      allowed: false,
      limit,
      remaining: left > 0n ? Number(left) : 0,
      retryAfterMs: retry,
      resetAfterMs: this.#resetAfter(now),
      cost,
    };
  }

  /**
   * The first time t >= now at which the estimate (with no new admissions) is <= target.
   * The estimate is continuous and linear on each aligned window, and 0 from the end of
   * the window after the current one; walk those pieces and solve the linear equation.
   */
  #firstTimeAtMost(now: number, target: Ratio): Ratio {
    const w = this.windowMs;
    const k = Math.floor(now / w);
    const pieces: Array<[number, number]> = [
      [now, (k + 1) * w],
      [(k + 1) * w, (k + 2) * w],
    ];
    for (const [from, to] of pieces) {
      const a = this.estimate(from);
      if (a.cmp(target) <= 0) return Ratio.of(from);
      const b = this.estimate(to); // the value at the piece's end (continuous)
      if (b.cmp(target) <= 0) {
        // a + (b - a) x (t - from) / (to - from) = target
        const dt = a
          .sub(target)
          .mul(Ratio.of(to - from))
          .div(a.sub(b));
        return Ratio.of(from).add(dt);
      }
    }
    throw new Error('unreachable: the estimate is 0 two windows later');
  }

  /** When the estimate reaches 0: the end of the last window holding a count, plus w. */
  #resetAfter(now: number): Ratio {
    const w = this.windowMs;
    const k = Math.floor(now / w);
    if ((this.#counts.get(k) ?? 0) > 0) return Ratio.of((k + 2) * w - now);
    if ((this.#counts.get(k - 1) ?? 0) > 0) return Ratio.of((k + 1) * w - now);
    return ZERO;
  }
}
