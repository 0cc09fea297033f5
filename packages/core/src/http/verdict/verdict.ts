import type { Decision } from '../../algorithms/decision.js';
import type { HeldCharge } from '../limiter/held.js';
import {
  type HeaderSetter,
  type HeaderStyle,
  headerNames,
  type LimitPolicy,
  pushPair,
  writeRateLimitHeaders,
} from './headers.js';

/** What the core answers for one request; the adapter writes it to the response. */
export interface HttpVerdict {
  /** `false`: answer with `statusCode`, `headers` and `body`, and do not run the handler. */
  allowed: boolean;
  /** 429 (or the `statusCode` option) when denied; 200 when allowed. */
  statusCode: number;
  /**
   * `Retry-After` in whole **seconds** (rounded up, at least 1) when denied; 0 when allowed;
   * -1 when the request can never be admitted (its cost is above the limit's capacity: the
   * decision's `retryAfterMs` is -1), which is answered without a `Retry-After` header.
   */
  retryAfterSeconds: number;
  /** Rate-limit headers (and `Retry-After` when denied), as `[name, value]` pairs. */
  headers: [string, string][];
  /** The 429 body when denied: a string (JSON by default) or an object. */
  body: string | object | undefined;
  /**
   * The body's media type when denied: `application/json; charset=utf-8` for the default
   * body and for an object (which the adapter serialises as JSON), `text/plain;
   * charset=utf-8` for a string returned by a `message` function (sent as the user made it).
   */
  contentType: string | undefined;
  /** The most restrictive decision: what `req.rateLimit` exposes. */
  decision: Decision;
  /** Every limit's decision, in order. */
  decisions: Decision[];
  /**
   * Writes {@link HttpVerdict.headers} to an adapter's response, one `set(target, name,
   * value)` per header, without building the pairs (the adapters' hot path).
   *
   * @param lowercase - pass the names in lower case (`x-ratelimit-limit`): for a framework
   *   that lowercases every name itself (Fastify), which then has nothing to convert.
   * @default lowercase false: the canonical names (`X-RateLimit-Limit`)
   */
  writeHeaders<T>(target: T, set: HeaderSetter<T>, lowercase?: boolean): void;
}

/**
 * An {@link HttpVerdict}. Its headers are written straight to the response
 * ({@link Verdict.writeHeaders}); the `headers` pairs and, for one limit, the `decisions`
 * array are only built when read.
 */
export class Verdict implements HttpVerdict {
  readonly allowed: boolean;
  statusCode = 200;
  retryAfterSeconds = 0;
  body: string | object | undefined = undefined;
  contentType: string | undefined = undefined;
  readonly decision: Decision;
  /**
   * The held charges: what this limiter charged for the request that is settled when the
   * request ends (concurrency leases; charges the outcome options may skip; `costAfter`
   * charges); `undefined`: nothing.
   */
  held: HeldCharge[] | undefined = undefined;
  #decisions: Decision[] | undefined;
  #headers: [string, string][] | undefined = undefined;
  readonly #styles: readonly HeaderStyle[];
  readonly #policies: readonly LimitPolicy[];
  readonly #reported: number;
  readonly #now: number;

  /**
   * @param decisions - every limit's decision, or `undefined` for one limit (`decision`).
   * @param reported - the index in `policies` of the limit `decision` belongs to.
   */
  // biome-ignore lint/complexity/useMaxParams: perf: one verdict per request; positional, no options object per call
  constructor(
    decision: Decision,
    decisions: Decision[] | undefined,
    styles: readonly HeaderStyle[],
    policies: readonly LimitPolicy[],
    reported: number,
    now: number,
  ) {
    this.allowed = decision.allowed;
    this.decision = decision;
    this.#decisions = decisions;
    this.#styles = styles;
    this.#policies = policies;
    this.#reported = reported;
    this.#now = now;
  }

  /** Whether the reported limit is a concurrency limit (`Retry-After: 1`). */
  get reportedConcurrent(): boolean {
    return this.#policies[this.#reported]?.concurrent === true;
  }

  /** Whether the reported limit is adaptive (`Limit.adaptive`): the server is full, a 503. */
  get reportedAdaptive(): boolean {
    return this.#policies[this.#reported]?.adaptive === true;
  }

  /**
   * The names of the limits whose decision denied this request, in order (the problem
   * body's `violated-policies`).
   */
  violatedPolicies(): string[] {
    const out: string[] = [];
    const decisions = this.#decisions;
    for (let i = 0; i < this.#policies.length; i++) {
      const d = decisions === undefined ? this.decision : decisions[i];
      if (d !== undefined && !d.allowed) out.push(this.#policies[i]!.name);
    }
    return out;
  }

  get decisions(): Decision[] {
    if (this.#decisions === undefined) this.#decisions = [this.decision];
    return this.#decisions;
  }

  get headers(): [string, string][] {
    if (this.#headers === undefined) {
      const out: [string, string][] = [];
      this.writeHeaders(out, pushPair);
      this.#headers = out;
    }
    return this.#headers;
  }

  writeHeaders<T>(target: T, set: HeaderSetter<T>, lowercase = false): void {
    const styles = this.#styles;
    const names = headerNames(lowercase);
    if (styles.length > 0) {
      writeRateLimitHeaders(
        styles,
        this.#policies[this.#reported]!,
        this.decision,
        this.#policies,
        this.#decisions,
        this.#now,
        target,
        set,
        names,
      );
    }
    // -1: the request can never be admitted (its cost is above the capacity): no wait helps.
    if (!this.allowed && this.retryAfterSeconds >= 0) {
      set(target, names.retryAfter, String(this.retryAfterSeconds));
    }
  }
}
