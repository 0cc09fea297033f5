import type { Decision } from '@sluice/core';
import { type Algorithm, chargeTimeOf, withChargeTime } from '@sluice/core/store';
import type { DeadlineQueue } from './batching/deadline-queue.js';
import {
  type Answer,
  FetchCalls,
  type FetchPart,
  type ScriptNow,
} from './batching/prefetch-calls.js';
import type { ServerClocks } from './batching/server-clock.js';
import type { LuaTwin } from './lua-common.js';
import type { RedisClient } from './lua-script.js';
import { FETCH_STRIDE, FetchMode } from './prefetch.lua.js';
import type { PrefetchConfig } from './prefetch-options.js';
import { keySlot } from './redis-key.js';

/**
 * Units of one key a process holds: taken from Redis by one fetch (charged there at
 * `at`), decided from in process until they run out or the lease ends, then the unused
 * ones given back.
 */
interface Lease {
  readonly key: string;
  readonly redisKey: string;
  readonly twin: LuaTwin;
  readonly algorithm: Algorithm;
  /** Units fetched and not (or no longer) used. */
  held: number;
  /** Units used by admitted requests (what a local give-back may return). */
  used: number;
  /** Redis's `remaining` after the fetch's charge. */
  readonly remaining: number;
  /** Redis's `resetAfterMs` after the fetch's charge. */
  readonly resetAfterMs: number;
  /** The store caller's `nowMs` at the fetch. */
  readonly fetchedMs: number;
  /** Ends (on the caller's clock) at this `nowMs`. */
  readonly endsMs: number;
  /** Ends at this `performance.now()` at the latest (the give-back timer). */
  readonly deadline: number;
  /** When the fetch was charged (Redis TIME, or the client's now), for the give-back. */
  readonly at: number;
  /** The fetch reply's 4th value (the twins' refunds need it). */
  readonly reset: number;
  /** Given back, or being given back: its units are no longer used. */
  done: boolean;
}

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

/** A store's decision of one request in Redis, without prefetch. */
export type Decide = (
  key: string,
  twin: LuaTwin,
  algorithm: Algorithm,
  cost: number,
  nowMs: number,
) => Promise<Decision>;

/** What a {@link Prefetch} is built from: its store's parts. */
export interface PrefetchParts {
  readonly config: PrefetchConfig;
  readonly client: RedisClient;
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
 * The prefetch of a `RedisStore` (option `prefetch`): per key, a lease of units fetched
 * from Redis in one script call (charged there at once), from which the key's next requests
 * are decided in process; unused units are given back, exactly (each twin's refund), when
 * the lease ends (`ttl`, or the end of the fetch's window for the window algorithms, so no
 * unit is used in a window it was not charged in), when a later fetch replaces it, and on
 * `close()`. Fetches and give-backs asked for in one turn of the event loop share one
 * script call per node.
 *
 * A request the lease cannot cover goes to Redis (one fetch per key at a time: requests
 * arriving meanwhile wait for it), so nothing is denied in process that Redis would admit.
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

  /** Whether requests under `algorithm` are prefetched (not a concurrency limit, not closed). */
  handles(algorithm: Algorithm): boolean {
    // A calendar quota's window moves with every edge: decided in Redis, request by request.
    return !this.#closed && algorithm.concurrent !== true && algorithm.kind !== 'calendar-window';
  }

  /** Units of `key` this process holds now (0 without a live lease). */
  held(key: string): number {
    const lease = this.#leases.get(key);
    return lease === undefined || lease.done ? 0 : lease.held;
  }

  /**
   * Decides one request (`cost` >= 1): from the key's lease when it covers `cost`, else by
   * a fetch (waiting first for one already in flight for the key).
   */
  // biome-ignore lint/complexity/useMaxParams: perf: per request; the store's own consume arguments, positional
  consume(
    key: string,
    twin: LuaTwin,
    algorithm: Algorithm,
    cost: number,
    now: ScriptNow,
    nowMs: number,
  ): Decision | Promise<Decision> {
    this.#lastNow = nowMs;
    const lease = this.#leases.get(key);
    if (
      lease !== undefined &&
      lease.held >= cost &&
      lease.algorithm === algorithm &&
      lease.endsMs > nowMs &&
      !lease.done
    ) {
      lease.held -= cost;
      lease.used += cost;
      return this.#local(lease, cost, nowMs);
    }
    const waiting = this.#waiting.get(key);
    if (waiting !== undefined) {
      // A fetch of this key is in flight: wait for it (see #landed).
      return new Promise<Decision>((resolve, reject) => {
        waiting.push({ twin, algorithm, cost, now, nowMs, resolve, reject });
      });
    }
    return this.#lead(key, { twin, algorithm, cost, now, nowMs }, []);
  }

  /** Whether `lease` is live for `algorithm` and covers `cost`. */
  #covers(lease: Lease | undefined, algorithm: Algorithm, cost: number, nowMs: number): boolean {
    return (
      lease !== undefined &&
      lease.held >= cost &&
      lease.algorithm === algorithm &&
      lease.endsMs > nowMs &&
      !lease.done
    );
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
      if (this.#covers(lease, w.algorithm, w.cost, w.nowMs)) {
        lease!.held -= w.cost;
        lease!.used += w.cost;
        w.resolve(this.#local(lease!, w.cost, w.nowMs));
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
    now: ScriptNow,
    nowMs: number,
  ): Decision[] | Promise<Decision[]> | undefined {
    if (new Set(keys).size !== keys.length) return undefined;
    if (this.#cluster) {
      const slot = keySlot(parts[0]!.key);
      if (parts.some((p) => keySlot(p.key) !== slot)) return undefined;
    }
    this.#lastNow = nowMs;
    const leases = keys.map((key) => this.#leases.get(key));
    const covered = leases.every(
      (lease, i) =>
        lease !== undefined &&
        !lease.done &&
        lease.algorithm === parts[i]!.algorithm &&
        lease.endsMs > nowMs &&
        (lease.held >= parts[i]!.cost || parts[i]!.cost === 0),
    );
    if (covered) {
      return leases.map((lease, i) => {
        const cost = parts[i]!.cost;
        lease!.held -= cost;
        lease!.used += cost;
        return this.#local(lease!, cost, nowMs);
      });
    }
    const fetch = parts.map((p, i) =>
      this.#part(keys[i]!, p.key, p.twin, p.algorithm, p.cost, leases[i]),
    );
    this.#sweepEnded(nowMs);
    return this.#fetch(fetch, now, nowMs);
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
    if (
      lease === undefined ||
      lease.done ||
      lease.algorithm !== algorithm ||
      lease.at !== atMs ||
      lease.used < cost ||
      lease.endsMs <= nowMs
    ) {
      return undefined;
    }
    lease.held += cost;
    lease.used -= cost;
    return { ...this.#local(lease, 0, nowMs) };
  }

  /** A peek from Redis (`decision`, cost 0) plus the units this process holds of `key`. */
  withHeld(key: string, algorithm: Algorithm, decision: Decision): Decision {
    const lease = this.#leases.get(key);
    if (lease === undefined || lease.done || lease.held === 0 || lease.algorithm !== algorithm) {
      return decision;
    }
    return { ...decision, remaining: Math.min(decision.limit, decision.remaining + lease.held) };
  }

  /** Forgets the key's lease without giving back (the key is being deleted). */
  forget(key: string): void {
    const lease = this.#leases.get(key);
    if (lease === undefined) return;
    lease.done = true;
    lease.held = 0;
    this.#leases.delete(key);
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

  /** Sends every open script call now (e.g. before a `DEL` that must come after them). */
  flush(): void {
    this.#calls.flush();
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
   * one by one.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const lease of this.#queue.slice(this.#head)) this.#end(lease);
    this.#queue = [];
    this.#head = 0;
    await this.settled();
  }

  /** An admitted request decided from `lease` (already charged `cost`). */
  #local(lease: Lease, cost: number, nowMs: number): Decision {
    const elapsed = nowMs - lease.fetchedMs;
    return withChargeTime(
      {
        allowed: true,
        limit: lease.algorithm.limit,
        // What Redis said after the fetch, plus what this process still holds.
        remaining: lease.remaining + lease.held,
        retryAfterMs: 0,
        resetAfterMs: elapsed > 0 ? Math.max(0, lease.resetAfterMs - elapsed) : lease.resetAfterMs,
        cost,
      },
      lease.at,
    );
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
    const part: FetchPart = { key, redisKey, twin, algorithm, cost, give: 0, at: 0, reset: 0 };
    if (lease !== undefined && !lease.done) {
      if (lease.algorithm === algorithm && lease.held > 0) {
        part.give = lease.held;
        part.at = lease.at;
        part.reset = lease.reset;
        lease.held = 0;
        lease.done = true;
      } else {
        this.#end(lease);
      }
      if (this.#leases.get(key) === lease) this.#leases.delete(key);
    }
    return part;
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
        remaining: d.remaining,
        resetAfterMs: d.resetAfterMs,
        fetchedMs: nowMs,
        endsMs: nowMs + this.#life(algorithm, d, at),
        deadline: performance.now() + this.ttlMs,
        at,
        reset: values[offset + 3]!,
        done: false,
      };
      if (lease.held > 0) this.#install(lease);
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
    lease.done = true;
    const give = lease.held;
    lease.held = 0;
    if (give === 0) return;
    const part: FetchPart = {
      key: lease.key,
      redisKey: lease.redisKey,
      twin: lease.twin,
      algorithm: lease.algorithm,
      cost: 0,
      give,
      at: lease.at,
      reset: lease.reset,
    };
    this.#calls.giveBack([part], this.#now());
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
