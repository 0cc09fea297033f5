import type { Decision } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import type { DeadlineQueue } from '../batching/deadline-queue.js';
import type { ServerClocks } from '../batching/server-clock.js';
import type { ScriptClient } from '../clients/client.js';
import { keySlot } from '../redis-key.js';
import type { LuaTwin } from '../twins/lua-common.js';
import { FetchCalls, type ScriptNow } from './calls.js';
import { type Decide, Fetches } from './fetches.js';
import { covers, localDecision, spend } from './holding.js';
import { Holdings } from './holdings.js';
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
 * Per key, a holding of units fetched from Redis in one script call (charged there at once),
 * from which the key's next requests are decided in process; unused units are given back,
 * exactly (each twin's refund), when the holding ends (`ttl`, or the end of the fetch's window
 * for the window algorithms, so no unit is used in a window it was not charged in), when a
 * later fetch replaces it, and on `close()`. Fetches and give-backs asked for in one turn
 * of the event loop share one script call per node.
 *
 * A request the holding cannot cover goes to Redis (one fetch per key at a time: requests
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
  /** The holdings, by key and in the order they were made. */
  readonly #holdings: Holdings;
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
    this.#holdings = new Holdings(config.ttlMs, (part) =>
      this.#calls.giveBack([part], this.#now()),
    );
    this.#fetches = new Fetches({
      calls: this.#calls,
      holdings: this.#holdings,
      ttlMs: config.ttlMs,
      down,
      keyFor,
      decide,
      handles: (algorithm) => this.handles(algorithm),
    });
  }

  /**
   * Whether a timer ends holdings after `ttl` of real time (default). Tests that drive time
   * with a fake clock turn it off and call {@link Prefetch.sweep}.
   * @internal
   */
  set realTime(on: boolean) {
    this.#holdings.realTime = on;
  }

  /**
   * Ends every holding whose end has come by `nowMs` (the caller's clock); their unused units
   * are given back in the next script call. For tests on a fake clock.
   * @internal
   */
  sweep(nowMs: number): void {
    this.#holdings.sweep(nowMs);
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

  /** Units of `key` this process holds now (0 without a live holding). */
  held(key: string): number {
    return this.#holdings.held(key);
  }

  /**
   * Decides one request of the store: from the key's holding when it covers `cost`, else by
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
    this.#holdings.lastNow = nowMs;
    const holding = this.#holdings.get(key);
    if (covers(holding, algorithm, cost, nowMs)) return spend(holding, cost, nowMs);
    const now = this.#serverTime ? '' : nowMs;
    return this.#fetches.one(key, { twin, algorithm, cost, now, nowMs });
  }

  /**
   * Decides a request under several limits all-or-nothing: from the holdings when every one
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
    this.#holdings.lastNow = nowMs;
    const holdings = keys.map((key) => this.#holdings.get(key));
    if (
      holdings.every((holding, i) => covers(holding, parts[i]!.algorithm, parts[i]!.cost, nowMs))
    ) {
      return holdings.map((holding, i) => spend(holding!, parts[i]!.cost, nowMs));
    }
    return this.#fetches.all(keys, parts, holdings, this.#serverTime ? '' : nowMs, nowMs);
  }

  /**
   * Gives `cost` units admitted at `atMs` back to the key's holding, when they came from it
   * (the holding is live and charged at `atMs`): resolves to the key's peek as this process
   * sees it. Undefined otherwise (the store gives back in Redis).
   */
  refund(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    atMs: number,
  ): Decision | undefined {
    const holding = this.#holdings.get(key);
    if (!covers(holding, algorithm, 0, nowMs) || holding.at !== atMs || holding.used < cost) {
      return undefined;
    }
    holding.held += cost;
    holding.used -= cost;
    return { ...localDecision(holding, 0, nowMs) };
  }

  /** A peek from Redis (`decision`, cost 0) plus the units this process holds of `key`. */
  #withHeld(key: string, algorithm: Algorithm, decision: Decision): Decision {
    const holding = this.#holdings.get(key);
    if (
      holding === undefined ||
      holding.done ||
      holding.held === 0 ||
      holding.algorithm !== algorithm
    ) {
      return decision;
    }
    return { ...decision, remaining: Math.min(decision.limit, decision.remaining + holding.held) };
  }

  /**
   * Forgets the key's holding without giving back (the key is being deleted), then sends every
   * open script call, so they reach Redis before the `DEL`.
   */
  reset(key: string): void {
    this.#holdings.forget(key);
    this.#calls.flush();
  }

  /** Resolves once every script call sent so far (and the give-backs they lead to) answered. */
  idle(): Promise<void> {
    return this.#calls.idle();
  }

  /**
   * Gives back every unit this process holds (and those of fetches still in flight, when
   * they land), then resolves once Redis has them; later requests are decided in Redis
   * one by one. Rejects with {@link PrefetchLostError} when a give-back failed (the client
   * was closed first, or Redis did not answer): the count of units left charged, never a key.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#holdings.close();
    await this.idle();
    const lost = this.#calls.takeLost();
    if (lost.units > 0) throw new PrefetchLostError(lost.units, lost.keys, lost.error);
  }

  /** The time of a give-back: Redis TIME, unless the store runs on the caller's clock. */
  #now(): ScriptNow {
    return this.#serverTime ? '' : this.#holdings.lastNow;
  }
}
