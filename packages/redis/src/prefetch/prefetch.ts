import type { Decision } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import type { DeadlineQueue } from '../batching/deadline-queue.js';
import type { ServerClocks } from '../batching/server-clock.js';
import type { ScriptClient } from '../clients/client.js';
import { keySlot } from '../redis-key.js';
import type { LuaTwin } from '../twins/lua-common.js';
import { FetchCalls, type ScriptNow } from './calls.js';
import { type Decide, Fetches } from './fetches.js';
import { covers, localDecision, spend } from './lease.js';
import { Leases } from './leases.js';
import { PrefetchLostError } from './lost-error.js';
import type { PrefetchConfig } from './options.js';

/** What a {@link Prefetch} is built from: its store's parts. */
export type { Decide } from './fetches.js';

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
  /** The leases, by key and in the order they were made. */
  readonly #leases: Leases;
  /** The fetches in flight, and the requests waiting for them. */
  readonly #fetches: Fetches;
  #closed = false;
  /** Whether scripts run on Redis TIME (the store's `clock: 'server'`). */
  readonly #serverTime: boolean;
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
    this.#leases = new Leases(config.ttlMs, (part) => this.#calls.giveBack([part], this.#now()));
    this.#fetches = new Fetches({
      calls: this.#calls,
      leases: this.#leases,
      ttlMs: config.ttlMs,
      down,
      keyFor,
      decide,
      handles: (algorithm) => this.handles(algorithm),
    });
  }

  /**
   * Whether a timer ends leases after `ttl` of real time (default). Tests that drive time
   * with a fake clock turn it off and call {@link Prefetch.sweep}.
   * @internal
   */
  set realTime(on: boolean) {
    this.#leases.realTime = on;
  }

  /**
   * Ends every lease whose end has come by `nowMs` (the caller's clock); their unused units
   * are given back in the next script call. For tests on a fake clock.
   * @internal
   */
  sweep(nowMs: number): void {
    this.#leases.sweep(nowMs);
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
    return this.#leases.held(key);
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
    this.#leases.lastNow = nowMs;
    const lease = this.#leases.get(key);
    if (covers(lease, algorithm, cost, nowMs)) return spend(lease, cost, nowMs);
    const now = this.#serverTime ? '' : nowMs;
    return this.#fetches.one(key, { twin, algorithm, cost, now, nowMs });
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
    this.#leases.lastNow = nowMs;
    const leases = keys.map((key) => this.#leases.get(key));
    if (leases.every((lease, i) => covers(lease, parts[i]!.algorithm, parts[i]!.cost, nowMs))) {
      return leases.map((lease, i) => spend(lease!, parts[i]!.cost, nowMs));
    }
    return this.#fetches.all(keys, parts, leases, this.#serverTime ? '' : nowMs, nowMs);
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
    this.#leases.forget(key);
    this.#calls.flush();
  }

  /** Resolves once every script call sent so far (and the give-backs they lead to) answered. */
  settled(): Promise<void> {
    return this.#calls.settled();
  }

  /**
   * Gives back every unit this process holds (and those of fetches still in flight, when
   * they land), then resolves once Redis has them; later requests are decided in Redis
   * one by one. Rejects with {@link PrefetchLostError} when a give-back failed (the client
   * was closed first, or Redis did not answer): the count of units left charged, never a key.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#leases.close();
    await this.settled();
    const lost = this.#calls.takeLost();
    if (lost.units > 0) throw new PrefetchLostError(lost.units, lost.keys, lost.error);
  }

  /** The time of a give-back: Redis TIME, unless the store runs on the caller's clock. */
  #now(): ScriptNow {
    return this.#serverTime ? '' : this.#leases.lastNow;
  }
}
