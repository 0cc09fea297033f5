import type { Decision } from '@sluice/core';
import { type Algorithm, chargeTimeOf, withChargeTime } from '@sluice/core/store';
import type { DeadlineQueue } from '../batching/deadline-queue.js';
import type { ServerClocks } from '../batching/server-clock.js';
import type { ScriptClient } from '../clients/client.js';
import { keySlot } from '../redis-key.js';
import type { LuaTwin } from '../twins/lua-common.js';
import { type Answer, FetchCalls, type FetchPart, givePart, type ScriptNow } from './calls.js';
import { FETCH_STRIDE, FetchMode } from './fetch.lua.js';
import { covers, giveBackPart, type Lease, localDecision, spend } from './lease.js';
import type { PrefetchConfig } from './options.js';

/** One request of a key, as {@link Prefetch.consume} took it. */
interface Request {
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

/**
 * The rejection of `RedisStore.close()` when units held by its prefetch could not be given
 * back (the client was closed before the store, or Redis did not answer): they stay charged
 * in Redis until the key's quota refills. Says how many units of how many keys, never which.
 *
 * @example
 * ```ts
 * try {
 *   await store.close();
 * } catch (error) {
 *   if (error instanceof PrefetchLostError) console.warn(error.message); // e.g. 99 units of 1 key
 * }
 * await client.quit();
 * ```
 */
export class PrefetchLostError extends Error {
  /** Units left charged in Redis. */
  readonly units: number;
  /** Keys they belong to. */
  readonly keys: number;

  constructor(units: number, keys: number, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `sluice: RedisStore.close() could not give back ${units} prefetched unit${units === 1 ? '' : 's'} of ${keys} key${keys === 1 ? '' : 's'} (${why}): they stay charged until the quota refills; close the store before the client`,
      { cause },
    );
    this.name = 'PrefetchLostError';
    this.units = units;
    this.keys = keys;
  }
}

/** What a {@link Prefetch} is built from: its store's parts. */
export interface PrefetchParts {
  readonly config: PrefetchConfig;
  /** The store's client, resolved once. */
  readonly client: ScriptClient;
  /** Whether `client` is a Cluster: calls are grouped by slot. */
  readonly cluster: boolean;
  readonly deadlines: DeadlineQueue;
  readonly clocks: ServerClocks;
  readonly twins: readonly LuaTwin[];
  /** Whether the store decides on Redis TIME (else on its callers' now). */
  readonly serverTime: boolean;
  /** An error when the client knows its connection is lost (no call is sent). */
  readonly down: () => Error | undefined;
  /** The Redis key of a store key. */
  readonly keyFor: (key: string) => string;
  /** The store's decision in Redis without prefetch. */
  readonly decide: Decide;
}

/**
 * The prefetch of a `RedisStore` (option `prefetch`), one layer over the store's Redis
 * paths: the store hands it every call, and it decides from units held in process what it
 * can, and passes the rest to the store's own decision (`decide`).
 *
 * Per key, a lease of units fetched from Redis in one script call (charged there at once),
 * from which the key's next requests are decided in process; unused units are given back,
 * exactly (each twin's refund), when the lease ends (`ttl`, or the end of the fetch's window
 * for the window algorithms, so no unit is used in a window it was not charged in), when a
 * later fetch replaces it, and on `close()`. Fetches and give-backs asked for in one turn
 * of the event loop share one script call per node.
 *
 * A request the lease cannot cover goes to Redis (one fetch per key at a time: requests
 * arriving meanwhile wait for it), so nothing is denied in process that Redis would admit.
 * Concurrency limits, calendar quotas and penalties (`blockFor`) are decided by the store
 * in Redis, request by request: a block must hold on every process at once, which units
 * held in one process cannot know.
 */
export class Prefetch {
  readonly units: number;
  readonly ttlMs: number;
  readonly #cluster: boolean;
  /** Its script calls. */
  readonly #calls: FetchCalls;
  /** Live leases by store key. */
  readonly #leases = new Map<string, Lease>();
  /** Leases in the order they were made (their ends are nearly in order): the sweep's queue. */
  #queue: Lease[] = [];
  #head = 0;
  /**
   * The keys with a single-key fetch in flight, and the requests waiting for it: when it
   * lands they take from its units, and those it cannot cover are fetched for together
   * (never one fetch after another, never many at once).
   */
  readonly #waiting = new Map<string, Waiter[]>();
  #timer: NodeJS.Timeout | undefined;
  /** The latest `nowMs` a caller gave: the time the timer's sweep uses. */
  #lastNow = 0;
  #closed = false;
  /**
   * Whether a timer ends leases after `ttl` of real time (default). Tests that drive time
   * with a fake clock turn it off and call {@link Prefetch.sweep}.
   * @internal
   */
  realTime = true;
  /** Whether scripts run on Redis TIME (the store's `clock: 'server'`). */
  readonly #serverTime: boolean;
  /** The store's check for a client that knows its connection is lost. */
  readonly #down: () => Error | undefined;
  /** The Redis key of a store key (built only for a fetch: a local decision needs none). */
  readonly #keyFor: (key: string) => string;
  /** The store's own decision in Redis (no prefetch), for one request's cost. */
  readonly #decide: Decide;

  constructor({
    config,
    client,
    cluster,
    deadlines,
    clocks,
    twins,
    serverTime,
    down,
    keyFor,
    decide,
  }: PrefetchParts) {
    this.#decide = decide;
    this.#serverTime = serverTime;
    this.#down = down;
    this.#keyFor = keyFor;
    this.units = config.units;
    this.ttlMs = config.ttlMs;
    this.#cluster = cluster;
    this.#calls = new FetchCalls({
      units: config.units,
      client,
      cluster,
      deadlines,
      clocks,
      twins,
    });
  }

  /**
   * Whether requests under `algorithm` are prefetched: not once closed, not a concurrency
   * limit, not a calendar quota (its window moves with every edge), not a penalty (a block
   * set by one process's denial must stop the others at once).
   */
  handles(algorithm: Algorithm): boolean {
    return (
      !this.#closed &&
      algorithm.concurrent !== true &&
      algorithm.inner === undefined &&
      algorithm.kind !== 'calendar-window'
    );
  }

  /** Units of `key` this process holds now (0 without a live lease). */
  held(key: string): number {
    const lease = this.#leases.get(key);
    return lease === undefined || lease.done ? 0 : lease.held;
  }

  /**
   * Decides one request of the store: from the key's lease when it covers `cost`, else by
   * a fetch (waiting first for one already in flight for the key). A peek (`cost` 0) asks
   * Redis and adds what this process holds; an algorithm it does not handle goes to the
   * store's own decision.
   */
  consume(
    key: string,
    twin: LuaTwin,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
  ): Decision | Promise<Decision> {
    if (!this.handles(algorithm)) return this.#decide(key, twin, algorithm, cost, nowMs);
    if (cost <= 0) {
      return this.#decide(key, twin, algorithm, 0, nowMs).then((peek) =>
        this.#withHeld(key, algorithm, peek),
      );
    }
    this.#lastNow = nowMs;
    const lease = this.#leases.get(key);
    if (covers(lease, algorithm, cost, nowMs)) return spend(lease, cost, nowMs);
    const now = this.#serverTime ? '' : nowMs;
    const waiting = this.#waiting.get(key);
    if (waiting !== undefined) {
      // A fetch of this key is in flight: wait for it (see #landed).
      return new Promise<Decision>((resolve, reject) => {
        waiting.push({ twin, algorithm, cost, now, nowMs, resolve, reject });
      });
    }
    return this.#lead(key, { twin, algorithm, cost, now, nowMs }, []);
  }

  /**
   * Fetches for `leader` and `group` together (their costs summed: one request to Redis),
   * while later requests of the key wait; decides each of them from the answer.
   */
  #lead(key: string, leader: Request, group: Waiter[]): Promise<Decision> {
    this.#waiting.set(key, []);
    let total = leader.cost;
    for (const w of group) total += w.cost;
    const lease = this.#leases.get(key);
    // The key's own lease, ended, is given back by the fetch itself (one script call); then
    // the other leases past their end go back (the timer would take them within ttl).
    const part = this.#part(key, this.#keyFor(key), leader.twin, leader.algorithm, total, lease);
    this.#sweepEnded(leader.nowMs);
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
   * waited meanwhile take from the new lease, in order; those it cannot cover are fetched
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
      const lease = this.#leases.get(key);
      if (covers(lease, w.algorithm, w.cost, w.nowMs)) {
        w.resolve(spend(lease, w.cost, w.nowMs));
      } else if (!d.allowed || w.algorithm !== leader.algorithm || !this.handles(w.algorithm)) {
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

  /**
   * Decides a request under several limits all-or-nothing: from the leases when every one
   * covers its cost, else by one fetch of every key. Undefined when it cannot: a key twice,
   * or keys in several Cluster slots (the store's own all-or-nothing path decides then).
   */
  consumeAll(
    keys: readonly string[],
    parts: readonly { key: string; twin: LuaTwin; algorithm: Algorithm; cost: number }[],
    nowMs: number,
  ): Decision[] | Promise<Decision[]> | undefined {
    if (!parts.every((p) => this.handles(p.algorithm))) return undefined;
    if (new Set(keys).size !== keys.length) return undefined;
    if (this.#cluster) {
      const slot = keySlot(parts[0]!.key);
      if (parts.some((p) => keySlot(p.key) !== slot)) return undefined;
    }
    this.#lastNow = nowMs;
    const leases = keys.map((key) => this.#leases.get(key));
    if (leases.every((lease, i) => covers(lease, parts[i]!.algorithm, parts[i]!.cost, nowMs))) {
      return leases.map((lease, i) => spend(lease!, parts[i]!.cost, nowMs));
    }
    const fetch = parts.map((p, i) =>
      this.#part(keys[i]!, p.key, p.twin, p.algorithm, p.cost, leases[i]),
    );
    this.#sweepEnded(nowMs);
    return this.#fetch(fetch, this.#serverTime ? '' : nowMs, nowMs);
  }

  /**
   * Gives `cost` units admitted at `atMs` back to the key's lease, when they came from it
   * (the lease is live and charged at `atMs`): resolves to the key's peek as this process
   * sees it. Undefined otherwise (the store gives back in Redis).
   */
  refund(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    atMs: number,
  ): Decision | undefined {
    const lease = this.#leases.get(key);
    if (!covers(lease, algorithm, 0, nowMs) || lease.at !== atMs || lease.used < cost) {
      return undefined;
    }
    lease.held += cost;
    lease.used -= cost;
    return { ...localDecision(lease, 0, nowMs) };
  }

  /** A peek from Redis (`decision`, cost 0) plus the units this process holds of `key`. */
  #withHeld(key: string, algorithm: Algorithm, decision: Decision): Decision {
    const lease = this.#leases.get(key);
    if (lease === undefined || lease.done || lease.held === 0 || lease.algorithm !== algorithm) {
      return decision;
    }
    return { ...decision, remaining: Math.min(decision.limit, decision.remaining + lease.held) };
  }

  /**
   * Forgets the key's lease without giving back (the key is being deleted), then sends every
   * open script call, so they reach Redis before the `DEL`.
   */
  reset(key: string): void {
    const lease = this.#leases.get(key);
    if (lease !== undefined) {
      lease.done = true;
      lease.held = 0;
      this.#leases.delete(key);
    }
    this.#calls.flush();
  }

  /**
   * Ends every lease whose end has come: on the caller's clock (`nowMs`), or, with
   * `perfNow`, by the timer (`ttl` of real time after its fetch). Their unused units are
   * given back in the next script call.
   */
  sweep(nowMs: number, perfNow = -1): void {
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const lease = queue[this.#head]!;
      if (!lease.done && lease.endsMs > nowMs && lease.deadline > perfNow) break;
      this.#end(lease);
      this.#head++;
    }
    if (this.#head === queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Resolves once every script call sent so far (and the give-backs they lead to) answered. */
  settled(): Promise<void> {
    return this.#calls.settled();
  }

  /** {@link Prefetch.sweep} when the oldest lease has ended by `nowMs`. */
  #sweepEnded(nowMs: number): void {
    const head = this.#queue[this.#head];
    if (head !== undefined && (head.done || head.endsMs <= nowMs)) this.sweep(nowMs);
  }

  /**
   * Gives back every unit this process holds (and those of fetches still in flight, when
   * they land), then resolves once Redis has them; later requests are decided in Redis
   * one by one. Rejects with {@link PrefetchLostError} when a give-back failed (the client
   * was closed first, or Redis did not answer): the count of units left charged, never a key.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const lease of this.#queue.slice(this.#head)) this.#end(lease);
    this.#queue = [];
    this.#head = 0;
    await this.settled();
    const lost = this.#calls.takeLost();
    if (lost.units > 0) throw new PrefetchLostError(lost.units, lost.keys, lost.error);
  }

  /** The part of a fetch for `key`, giving back first what its previous lease holds. */
  // biome-ignore lint/complexity/useMaxParams: perf: per fetch part; positional, no options object per call
  #part(
    key: string,
    redisKey: string,
    twin: LuaTwin,
    algorithm: Algorithm,
    cost: number,
    lease: Lease | undefined,
  ): FetchPart {
    if (lease === undefined || lease.done) {
      return givePart({ key, redisKey, twin, algorithm }, 0, 0, 0, cost);
    }
    if (this.#leases.get(key) === lease) this.#leases.delete(key);
    // The same limit: the fetch gives its lease back first, in one script call.
    if (lease.algorithm === algorithm) return giveBackPart(lease, cost);
    this.#end(lease);
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
      const lease: Lease = {
        key: part.key,
        redisKey: part.redisKey,
        twin,
        algorithm,
        held: took - cost,
        used: cost,
        resetAfterMs: d.resetAfterMs,
        fetchedMs: nowMs,
        endsMs: nowMs + this.#life(algorithm, d, at),
        deadline: performance.now() + this.ttlMs,
        at,
        reset: values[offset + 3]!,
        done: false,
      };
      if (lease.held > 0) this.#install(lease);
      // Redis's remaining now, plus what this process holds: exact at the fetch.
      return withChargeTime(
        {
          allowed: true,
          limit: d.limit,
          remaining: d.remaining + lease.held,
          retryAfterMs: 0,
          resetAfterMs: d.resetAfterMs,
          cost,
        },
        at,
      );
    });
  }

  /**
   * How long a lease fetched at `at` (the decision's time) may be used: `ttl`, and for the
   * window algorithms no longer than the window it was charged in.
   */
  #life(algorithm: Algorithm, d: Decision, at: number): number {
    const base = algorithm.inner ?? algorithm;
    if (base.kind === 'fixed-window') return Math.min(this.ttlMs, d.resetAfterMs);
    if (base.kind === 'sliding-window') {
      const windowMs = base.params[1]!;
      return Math.min(this.ttlMs, windowMs - (((at % windowMs) + windowMs) % windowMs));
    }
    return this.ttlMs;
  }

  #install(lease: Lease): void {
    if (this.#closed) {
      this.#end(lease);
      return;
    }
    const old = this.#leases.get(lease.key);
    if (old !== undefined) this.#end(old);
    this.#leases.set(lease.key, lease);
    this.#queue.push(lease);
    if (this.#timer === undefined && this.realTime) this.#arm(this.ttlMs);
  }

  /** Ends `lease`: gives back what it holds (in the next script call). */
  #end(lease: Lease): void {
    if (this.#leases.get(lease.key) === lease) this.#leases.delete(lease.key);
    if (lease.done) return;
    const part = giveBackPart(lease);
    if (part.give > 0) this.#calls.giveBack([part], this.#now());
  }

  /** The time of a give-back: Redis TIME, unless the store runs on the caller's clock. */
  #now(): ScriptNow {
    return this.#serverTime ? '' : this.#lastNow;
  }

  #arm(delayMs: number): void {
    this.#timer = setTimeout(this.#onTimer, Math.max(1, Math.ceil(delayMs)));
    this.#timer.unref();
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    const perfNow = performance.now();
    this.sweep(this.#lastNow, perfNow);
    const head = this.#queue[this.#head];
    if (head !== undefined) this.#arm(head.deadline - perfNow);
  };
}
