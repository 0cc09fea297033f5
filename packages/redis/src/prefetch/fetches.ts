import type { Decision } from '@sluice/core';
import { type Algorithm, chargeTimeOf, withChargeTime } from '@sluice/core/store';
import type { LuaTwin } from '../twins/lua-common.js';
import { type Answer, type FetchCalls, type FetchPart, givePart, type ScriptNow } from './calls.js';
import { FETCH_STRIDE, FetchMode } from './fetch.lua.js';
import { covers, giveBackPart, type Holding, holdingLife, spend } from './holding.js';
import type { Holdings } from './holdings.js';

/** One request of a key, as `Prefetch.consume` took it. */
export interface Request {
  twin: LuaTwin;
  algorithm: Algorithm;
  cost: number;
  now: ScriptNow;
  nowMs: number;
}

/** A request waiting for its key's fetch in flight. */
interface Waiter extends Request {
  resolve: (decision: Decision | Promise<Decision>) => void;
  reject: (error: unknown) => void;
}

/** The store's own decision of one request in Redis (no prefetch). */
export type Decide = (
  key: string,
  twin: LuaTwin,
  algorithm: Algorithm,
  cost: number,
  nowMs: number,
) => Promise<Decision>;

/** What {@link Fetches} works with: its prefetch's parts. */
export interface FetchesParts {
  readonly calls: FetchCalls;
  readonly holdings: Holdings;
  readonly ttlMs: number;
  /** An error when the client knows its connection is lost (no call is sent). */
  readonly down: () => Error | undefined;
  /** The Redis key of a store key (built only for a fetch: a local decision needs none). */
  readonly keyFor: (key: string) => string;
  /** The store's own decision in Redis (no prefetch), for one request's cost. */
  readonly decide: Decide;
  /** Whether the prefetch takes requests under `algorithm` (see `Prefetch.handles`). */
  readonly handles: (algorithm: Algorithm) => boolean;
}

/**
 * The fetches of a prefetch: one per key at a time (the requests that arrive meanwhile wait
 * for it, take from its units when it lands, and those it cannot cover are fetched for
 * together: never one fetch after another, never many at once), and the all-or-nothing
 * fetches of several limits. A fetch first gives back what the key's previous holding holds,
 * in the same script call; what it takes becomes the key's new holding.
 */
export class Fetches {
  readonly #calls: FetchCalls;
  readonly #holdings: Holdings;
  readonly #ttlMs: number;
  readonly #down: () => Error | undefined;
  readonly #keyFor: (key: string) => string;
  readonly #decide: Decide;
  readonly #handles: (algorithm: Algorithm) => boolean;
  /** The keys with a single-key fetch in flight, and the requests waiting for it. */
  readonly #waiting = new Map<string, Waiter[]>();

  constructor(parts: FetchesParts) {
    this.#calls = parts.calls;
    this.#holdings = parts.holdings;
    this.#ttlMs = parts.ttlMs;
    this.#down = parts.down;
    this.#keyFor = parts.keyFor;
    this.#decide = parts.decide;
    this.#handles = parts.handles;
  }

  /** Decides `request` of `key` by a fetch, or by the one in flight for the key. */
  one(key: string, request: Request): Promise<Decision> {
    const waiting = this.#waiting.get(key);
    if (waiting !== undefined) {
      // A fetch of this key is in flight: wait for it (see #landed).
      return new Promise<Decision>((resolve, reject) => {
        const { twin, algorithm, cost, now, nowMs } = request;
        waiting.push({ twin, algorithm, cost, now, nowMs, resolve, reject });
      });
    }
    return this.#lead(key, request, []);
  }

  /** Decides a request under several limits (`parts` of `keys`) by one fetch of every key. */
  all(
    keys: readonly string[],
    parts: readonly { key: string; twin: LuaTwin; algorithm: Algorithm; cost: number }[],
    holdings: readonly (Holding | undefined)[],
    now: ScriptNow,
    nowMs: number,
  ): Promise<Decision[]> {
    const fetch = parts.map((p, i) =>
      this.#part(keys[i]!, p.key, p.twin, p.algorithm, p.cost, holdings[i]),
    );
    this.#holdings.sweepEnded(nowMs);
    return this.#fetch(fetch, now, nowMs);
  }

  /**
   * Fetches for `leader` and `group` together (their costs summed: one request to Redis),
   * while later requests of the key wait; decides each of them from the answer.
   */
  #lead(key: string, leader: Request, group: Waiter[]): Promise<Decision> {
    this.#waiting.set(key, []);
    let total = leader.cost;
    for (const w of group) total += w.cost;
    const holding = this.#holdings.get(key);
    // The key's own holding, ended, is given back by the fetch itself (one script call); then
    // the other holdings past their end go back (the timer would take them within ttl).
    const part = this.#part(key, this.#keyFor(key), leader.twin, leader.algorithm, total, holding);
    this.#holdings.sweepEnded(leader.nowMs);
    const fetched = this.#fetch([part], leader.now, leader.nowMs).then(
      (decisions) => decisions[0]!,
    );
    const landed = fetched.then(
      (d) => this.#landed(key, leader, group, d, undefined),
      (error: unknown) => this.#landed(key, leader, group, undefined, error),
    );
    return landed;
  }

  /**
   * A fetch for `leader` and `group` answered `d` (or failed with `error`): each of them
   * gets the admission (charged together) or, when the sum did not fit, a decision in Redis
   * for its own cost (the leader alone: Redis's denial as it is). Then the requests that
   * waited meanwhile take from the new holding, in order; those it cannot cover are fetched
   * for together, by the first of them. Resolves to the leader's decision.
   */
  #landed(
    key: string,
    leader: Request,
    group: Waiter[],
    d: Decision | undefined,
    error: unknown,
  ): Decision | Promise<Decision> {
    const waiting = this.#waiting.get(key) ?? [];
    this.#waiting.delete(key);
    if (d === undefined) {
      for (const w of group) w.reject(error);
      for (const w of waiting) w.reject(error);
      throw error;
    }
    let mine: Decision | Promise<Decision> = d;
    if (d.allowed) {
      const at = chargeTimeOf(d);
      const own = (cost: number) => {
        const decision = { ...d, cost };
        return at === undefined ? decision : withChargeTime(decision, at);
      };
      mine = own(leader.cost);
      for (const w of group) w.resolve(own(w.cost));
    } else if (group.length > 0) {
      // The sum did not fit: each one alone, in Redis (near the limit, some may).
      mine = this.#decide(key, leader.twin, leader.algorithm, leader.cost, leader.nowMs);
      for (const w of group) w.resolve(this.#decide(key, w.twin, w.algorithm, w.cost, w.nowMs));
    }
    const rest: Waiter[] = [];
    for (const w of waiting) {
      const holding = this.#holdings.get(key);
      if (covers(holding, w.algorithm, w.cost, w.nowMs)) {
        w.resolve(spend(holding, w.cost, w.nowMs));
      } else if (!d.allowed || w.algorithm !== leader.algorithm || !this.#handles(w.algorithm)) {
        // Denied just now, or another limit on this key: decided in Redis, together.
        w.resolve(this.#decide(key, w.twin, w.algorithm, w.cost, w.nowMs));
      } else {
        rest.push(w);
      }
    }
    if (rest.length > 0) {
      const [first, ...others] = rest;
      first!.resolve(this.#lead(key, first!, others));
    }
    return mine;
  }

  /** The part of a fetch for `key`, giving back first what its previous holding holds. */
  // biome-ignore lint/complexity/useMaxParams: perf: per fetch part; positional, no options object per call
  #part(
    key: string,
    redisKey: string,
    twin: LuaTwin,
    algorithm: Algorithm,
    cost: number,
    holding: Holding | undefined,
  ): FetchPart {
    if (holding === undefined || holding.done) {
      return givePart({ key, redisKey, twin, algorithm }, 0, 0, 0, cost);
    }
    this.#holdings.detach(holding);
    // The same limit: the fetch gives its holding back first, in one script call.
    if (holding.algorithm === algorithm) return giveBackPart(holding, cost);
    this.#holdings.end(holding);
    return givePart({ key, redisKey, twin, algorithm }, 0, 0, 0, cost);
  }

  /** Fetches for `parts` (one request) and decides it. */
  #fetch(parts: FetchPart[], now: ScriptNow, nowMs: number): Promise<Decision[]> {
    const down = this.#down();
    if (down !== undefined) {
      this.#calls.giveBackAgain(parts, now);
      return Promise.reject(down);
    }
    return this.#calls
      .queue(FetchMode.Fetch, parts, now)
      .then((answer) => this.#answer(parts, answer, now, nowMs));
  }

  #answer(parts: FetchPart[], answer: Answer, now: ScriptNow, nowMs: number): Decision[] {
    const { values, clock, charged } = answer;
    const at = now === '' ? clock : now;
    return parts.map((part, i) => {
      const offset = i * FETCH_STRIDE;
      const { twin, algorithm, cost } = part;
      if (!charged) return twin.decode(values, offset, algorithm, cost);
      const took = values[offset + FETCH_STRIDE - 1]!;
      const d = twin.decode(values, offset, algorithm, took);
      const holding: Holding = {
        key: part.key,
        redisKey: part.redisKey,
        twin,
        algorithm,
        held: took - cost,
        used: cost,
        resetAfterMs: d.resetAfterMs,
        fetchedMs: nowMs,
        endsMs: nowMs + holdingLife(this.#ttlMs, algorithm, d, at),
        deadline: performance.now() + this.#ttlMs,
        at,
        reset: values[offset + 3]!,
        done: false,
      };
      if (holding.held > 0) this.#holdings.install(holding);
      // Redis's remaining now, plus what this process holds: exact at the fetch.
      return withChargeTime(
        {
          allowed: true,
          limit: d.limit,
          remaining: d.remaining + holding.held,
          retryAfterMs: 0,
          resetAfterMs: d.resetAfterMs,
          cost,
        },
        at,
      );
    });
  }
}
