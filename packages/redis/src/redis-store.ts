import type { Decision, Store } from '@sluice/core';
import {
  type Algorithm,
  enableOperations,
  fullKey,
  type OperationsSync,
  releaseOperations,
  type StoreRequest,
  type StoreReservation,
} from '@sluice/core/store';
import { AllOrNothing, type Part } from './batching/all-or-nothing.js';
import { DeadlineQueue } from './batching/deadline-queue.js';
import { ServerClocks } from './batching/server-clock.js';
import { SingleKeyBatches } from './batching/single-key.js';
import type { RedisClient, ScriptClient } from './clients/client.js';
import {
  isSupportedVersion,
  type MIN_REDIS_VERSION,
  RedisVersionError,
  redisVersionOf,
} from './clients/version.js';
import { RedisOperations } from './operations/redis-operations.js';
import { parseStoreOptions, type RedisStoreOptions } from './options.js';
import type { PrefetchLostError } from './prefetch/lost-error.js';
import { Prefetch } from './prefetch/prefetch.js';
import { keySlot, redisKey } from './redis-key.js';
import { ISOLATED_REQUESTS } from './runtime/isolation.js';
import { consumeAtMostOnRedis } from './twins/at-most.lua.js';
import type { LuaTwin } from './twins/lua-common.js';
import { noTwin, STORE_TWINS, twinOf } from './twins/registry.js';
import { type ReserveContext, reserveAllOnRedis, reserveOnRedis } from './twins/reserve.lua.js';

export { LUA_SOURCES } from './twins/registry.js';

/**
 * A {@link Store} on Redis, Valkey, Redis Cluster or Sentinel, through ioredis 5/6, iovalkey
 * or node-redis 5/6, or on Redis over HTTP through `@upstash/redis` (Workers, Vercel's edge
 * runtime; tested against a REST bridge, not the hosted service) (one code for all: see the
 * option `client`): every decision is one `EVALSHA` of
 * the algorithm's Lua twin (reloaded with `EVAL` on `NOSCRIPT`), atomic, so any number of
 * processes sharing a key admit exactly the limit. Every key has an expiry, so idle keys
 * leave Redis. Keys are `<prefix><key>` on a standalone `Redis` and `<prefix>{<key>}` (a
 * hash tag) on a `Cluster`; option `hashTag` and `redisKey` tell more.
 *
 * A call that times out charges nothing, even if Redis runs it later (after a stall): each
 * script carries its callers' deadline on Redis's own clock (the offset from this process's
 * clock is measured from the `TIME` each reply carries) and does nothing once it is past.
 * A call whose script ran in time but whose reply arrived too late (the reply itself held
 * up), or that was given up when its node's breaker opened, is given back when its reply
 * arrives, by its algorithm's refund. What can stay charged: a call whose reply never
 * arrives (the connection lost after the script ran), a give-back that fails, and the block
 * a late denial under `blockFor` started. Until the first reply from a server, calls carry
 * no deadline.
 *
 * ```ts
 * const store = new RedisStore({ client: new Redis(), timeoutMs: 200 });
 * const limiter = new RateLimiter({ algorithm: gcra({ rate: 60, period: '1m' }), store });
 * ```
 *
 * @throws {@link SluiceConfigError} naming `client`, `prefix`, `hashTag`, `clock`,
 *   `timeoutMs`, `prefetch.*`, `operations.syncMs` or an unknown option name; for a client given as the options
 *   (`new RedisStore(client)`), naming `options` and saying `new RedisStore({ client })`.
 */
export class RedisStore implements Store {
  /** The Redis client (option `client`). */
  readonly client: RedisClient;
  /** Prepended to every Redis key (option `prefix`). */
  readonly prefix: string;
  /** Whether keys carry a hash tag (option `hashTag`). */
  readonly hashTag: boolean;
  /** Whose clock decides (option `clock`). */
  readonly clock: 'server' | 'client';
  /** The longest a call may take, in **ms** (option `timeoutMs`). */
  readonly timeoutMs: number;
  /**
   * On a `Cluster`: the master node serving `key`'s slot (`'host:port'`, `''` before the
   * slot table is loaded), so a limiter keeps one circuit breaker per node and one node
   * down stops only the calls to it. Undefined on a standalone `Redis` (one domain).
   */
  readonly failureDomain?: (key: string) => string;
  readonly #deadlines: DeadlineQueue;
  readonly #singleKey: SingleKeyBatches;
  readonly #allOrNothing: AllOrNothing;
  /** What a reservation call needs (reserve.lua.ts). */
  readonly #reserving: ReserveContext;
  /**
   * The prefetch (option `prefetch`), undefined when off. Exposed for tests and tools:
   * `held(key)` is what this process holds of a key.
   * @internal
   */
  readonly prefetcher: Prefetch | undefined;
  /**
   * The operator entries (bans, allow and deny lists, overrides: `LimitOperations`) of
   * every limiter prefix, shared by every process on this Redis: a hash of entries,
   * a sorted set of their ends (entries expire by themselves), a version counter, all in
   * one Cluster slot per prefix; every write is one script that also bumps the version and
   * `PUBLISH`es it. Each process listens on one pub/sub connection per client, shared by
   * every store on that client (a `duplicate()` of the client, made when a limiter or
   * `LimitOperations` first subscribes; closed when the last of those stores closes, see
   * {@link RedisStore.close}). Limiters decide from a snapshot in process: no command per
   * decision.
   */
  readonly operations: OperationsSync;
  readonly #operations: RedisOperations;
  readonly #driver: ScriptClient;
  /** The server's version check: undefined before the first call, true once passed. */
  #version: Promise<void> | true | undefined;
  /** The last algorithm `consume` was called with, and its twin. */
  #lastAlgorithm: Algorithm | undefined;
  #lastTwin: LuaTwin | undefined;

  constructor(options: RedisStoreOptions) {
    const { client, driver, prefix, hashTag, clock, timeoutMs, prefetch, syncMs } =
      parseStoreOptions(options);
    const cluster = driver.cluster;
    this.client = client;
    this.#driver = driver;
    this.prefix = prefix;
    this.hashTag = hashTag;
    this.clock = clock;
    this.timeoutMs = timeoutMs;
    this.#deadlines = new DeadlineQueue(timeoutMs);
    const clocks = new ServerClocks();
    const down = () => driver.down();
    const deadlines = this.#deadlines;
    const twins = STORE_TWINS;
    // The engines get the client resolved once (`driver`), never the raw client.
    this.#allOrNothing = new AllOrNothing({ client: driver, cluster, deadlines, clocks, twins });
    this.#singleKey = new SingleKeyBatches({
      client: driver,
      cluster,
      deadlines,
      clocks,
      down,
      giveBack: (part, now, at) => this.#allOrNothing.refundOne(part, now, at),
    });
    this.#reserving = { client: driver, cluster, deadlines, clocks };
    // One script runs on one node, and the keys of different limits lie in different slots:
    // on a Cluster the store cannot book several limits at once, so it has no reserveAll
    // (a queued route with several limits is then a SluiceConfigError at construction).
    if (!cluster) {
      this.reserveAll = (requests, nowMs, maxWaitMs) =>
        this.#reserveAll(requests, nowMs, maxWaitMs);
    }
    this.prefetcher =
      prefetch &&
      new Prefetch({
        config: prefetch,
        client: driver,
        cluster,
        deadlines,
        clocks,
        twins,
        serverTime: clock === 'server',
        down,
        keyFor: (key) => this.keyFor(key),
        decide: (key, twin, algorithm, cost, nowMs) =>
          this.#decide(twin, key, algorithm, cost, nowMs),
      });
    // Limiters on this store obey entries other processes write (the CLI, another server): the
    // operations module must be in the app even when it never imports LimitOperations.
    enableOperations();
    this.#operations = new RedisOperations({
      client,
      driver,
      storePrefix: prefix,
      deadlines,
      syncMs,
    });
    this.operations = this.#operations;
    if (cluster) this.failureDomain = (key) => driver.masterOf(keySlot(this.keyFor(key))) ?? '';
  }

  /**
   * {@link Store.failPending}: rejects every call already sent to `domain` (a
   * {@link RedisStore.failureDomain} value; undefined: every server) and not yet answered,
   * so a limiter whose breaker for that node just opened decides them by its policy now.
   */
  failPending(domain?: string): void {
    this.#deadlines.failSent(domain);
  }

  /** The Redis key used for a limiter key: `redisKey(prefix, key, hashTag)`. */
  keyFor(key: string): string {
    return redisKey(this.prefix, key, this.hashTag);
  }

  /**
   * @returns a promise that rejects with a `TypeError` for an algorithm whose `kind` has no
   *   Lua twin (only the built-in kinds run on Redis); with option `prefetch`, a decision
   *   taken from the units this process holds comes back as it is (no promise).
   */
  consume(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
  ): Decision | Promise<Decision> {
    // A calendar quota's Lua parameters are the edges around the caller's time.
    if (algorithm.at !== undefined) algorithm = algorithm.at(nowMs);
    // perf: a limiter calls with one Algorithm object: its twin is found once.
    let twin = this.#lastTwin;
    if (algorithm !== this.#lastAlgorithm) {
      twin = twinOf(algorithm);
      this.#lastAlgorithm = algorithm;
      this.#lastTwin = twin;
    }
    if (twin === undefined) return Promise.reject(noTwin(algorithm.kind));
    if (this.#version !== true) {
      return this.#afterCheck(() => this.consume(key, algorithm, cost, nowMs));
    }
    const prefetch = this.prefetcher;
    if (prefetch !== undefined) return prefetch.consume(key, twin, algorithm, cost, nowMs);
    return this.#decide(twin, key, algorithm, cost, nowMs);
  }

  /** One decision in Redis, batched with the turn's others (batching/single-key.ts). */
  #decide(
    twin: LuaTwin,
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
  ): Promise<Decision> {
    const down = this.#down();
    if (down) return Promise.reject(down);
    return this.#singleKey.add(
      twin,
      this.keyFor(key),
      this.clock === 'client' ? nowMs : '',
      cost,
      algorithm,
    );
  }

  /**
   * {@link Store.consumeAtMost}: up to `max` units in one `EVALSHA` of the twin's at-most
   * script (at-most.lua.ts, the twin of core's `stepAtMost`), atomic; a call past its
   * deadline grants nothing. Not batched, and past `prefetch`: the units this process
   * holds stay held (charged in Redis already, so the grant counts them as taken; it never
   * admits more than the limit).
   *
   * @returns a promise that rejects as {@link RedisStore.consume} does.
   */
  consumeAtMost(key: string, algorithm: Algorithm, max: number, nowMs: number): Promise<Decision> {
    if (algorithm.at !== undefined) algorithm = algorithm.at(nowMs);
    const twin = twinOf(algorithm);
    if (twin === undefined) return Promise.reject(noTwin(algorithm.kind));
    if (this.#version !== true) {
      return this.#afterCheck(() => this.consumeAtMost(key, algorithm, max, nowMs));
    }
    const down = this.#down();
    if (down) return Promise.reject(down);
    // Decisions asked for before this grant reach Redis before it.
    this.#singleKey.flush();
    const now = this.clock === 'client' ? nowMs : '';
    return consumeAtMostOnRedis(this.#reserving, this.keyFor(key), twin, algorithm, { max, now });
  }

  /**
   * {@link Store.consumeAll}: every request admitted, or none charged, under concurrency
   * too. On a standalone Redis, and on a Cluster when every key shares a hash slot, one
   * `EVALSHA` decides them all atomically (each key by its algorithm's own Lua function,
   * mixed algorithms alike). On a Cluster across slots, each slot's keys are charged
   * all-or-nothing in turn, and when one slot's do not fit, what the earlier slots took is
   * given back (exact for fixed window, sliding window and sliding log; for GCRA exact while
   * the key stays backlogged, else at most the time between charge and refund extra): the
   * units are held meanwhile, so a concurrent request may be denied for them. Requests on
   * one node asked for in one turn of the event loop share one `EVALSHA` per slot (each
   * decided alone); across slots, one call per slot per request.
   *
   * @returns a promise that rejects as {@link RedisStore.consume} does, for all requests.
   */
  consumeAll(requests: readonly StoreRequest[], nowMs: number): Promise<Decision[]> {
    if (requests.length === 0) return Promise.resolve([]);
    const parts: Part[] = [];
    for (const r of requests) {
      const algorithm = r.algorithm.at?.(nowMs) ?? r.algorithm;
      const twin = twinOf(algorithm);
      if (twin === undefined) return Promise.reject(noTwin(algorithm.kind));
      parts.push({ key: this.keyFor(fullKey(r)), twin, algorithm, cost: r.cost });
    }
    const decided = this.prefetcher?.consumeAll(requests.map(fullKey), parts, nowMs);
    if (decided !== undefined) return Promise.resolve(decided);
    if (this.#version !== true) return this.#afterCheck(() => this.consumeAll(requests, nowMs));
    const down = this.#down();
    if (down) return Promise.reject(down);
    return this.#allOrNothing.run(parts, this.clock === 'client' ? nowMs : '');
  }

  /**
   * {@link Store.refund}: gives back `cost` units charged at `atMs` with the algorithm's
   * Lua refund (`<twin>_refund`, the twin of its TS `refund`), atomically, in one `EVALSHA`
   * (the all-or-nothing script in its refund mode). With `clock: 'server'`, `atMs` must be
   * on Redis's clock: `chargeTimeOf(decision)` of the charge (recorded by this store).
   * Resolves to the key's peek afterwards.
   *
   * @returns a promise that rejects as {@link RedisStore.consume} does.
   */
  refund(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    atMs: number,
  ): Promise<Decision> {
    if (algorithm.at !== undefined) algorithm = algorithm.at(nowMs);
    const twin = twinOf(algorithm);
    if (twin === undefined) return Promise.reject(noTwin(algorithm.kind));
    // Units admitted from this process's prefetch go back to it, with no round trip.
    const local = this.prefetcher?.refund(key, algorithm, cost, nowMs, atMs);
    if (local !== undefined) return Promise.resolve(local);
    if (this.#version !== true) {
      return this.#afterCheck(() => this.refund(key, algorithm, cost, nowMs, atMs));
    }
    const down = this.#down();
    if (down) return Promise.reject(down);
    // No flush: a refund follows its charge's answer, so that charge has run already.
    const part: Part = { key: this.keyFor(key), twin, algorithm, cost };
    return this.#allOrNothing.refundOne(part, this.clock === 'client' ? nowMs : '', atMs);
  }

  /**
   * {@link Store.reserve}: books a GCRA request's future slot in one `EVALSHA` of the
   * reservation twin (reserve.lua.ts), atomically, so requests of every process are served
   * in the order they reached Redis; a call past its deadline books nothing. Not batched
   * and not through `prefetch` (its holdings are already charged in Redis).
   *
   * @returns a promise that rejects with a `TypeError` for an algorithm that is not GCRA
   *   (or its buckets), and as {@link RedisStore.consume} does.
   */
  reserve(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    maxWaitMs: number,
  ): Promise<{ decision: Decision; delayMs: number }> {
    if (this.#version !== true) {
      return this.#afterCheck(() => this.reserve(key, algorithm, cost, nowMs, maxWaitMs));
    }
    const down = this.#down();
    if (down) return Promise.reject(down);
    // Decisions asked for before this reservation reach Redis before it.
    this.#singleKey.flush();
    const now = this.clock === 'client' ? nowMs : '';
    return reserveOnRedis(this.#reserving, this.keyFor(key), algorithm, { cost, now, maxWaitMs });
  }

  /**
   * {@link Store.reserveAll}: books several GCRA keys' future slots all-or-nothing in one
   * `EVALSHA` (reserve.lua.ts): each as {@link RedisStore.reserve} would, only when every
   * one books within `maxWaitMs`. `undefined` on a Cluster (one script runs on one node;
   * the limits' keys lie in different slots).
   *
   * @returns a promise that rejects with a `TypeError` for an algorithm that is not GCRA or
   *   a key asked for twice, and as {@link RedisStore.consume} does.
   */
  readonly reserveAll?: (
    requests: readonly StoreRequest[],
    nowMs: number,
    maxWaitMs: number,
  ) => Promise<StoreReservation[]>;

  #reserveAll(
    requests: readonly StoreRequest[],
    nowMs: number,
    maxWaitMs: number,
  ): Promise<StoreReservation[]> {
    if (this.#version !== true) {
      return this.#afterCheck(() => this.#reserveAll(requests, nowMs, maxWaitMs));
    }
    const down = this.#down();
    if (down) return Promise.reject(down);
    this.#singleKey.flush();
    const parts = requests.map((r) => ({
      key: this.keyFor(fullKey(r)),
      algorithm: r.algorithm,
      cost: r.cost,
    }));
    const now = this.clock === 'client' ? nowMs : '';
    return reserveAllOnRedis(this.#reserving, parts, { now, maxWaitMs });
  }

  async reset(key: string): Promise<void> {
    if (this.#version !== true) await this.#afterCheck(() => Promise.resolve());
    const down = this.#down();
    if (down) throw down;
    // Decisions asked for before this reset reach Redis before its DEL.
    this.#singleKey.flush();
    this.#allOrNothing.flush();
    this.prefetcher?.reset(key);
    await this.#deadlines.wrap(this.#driver.del(this.keyFor(key)));
  }

  /**
   * Checks the server's version now (the store does on its first call anyway): resolves
   * when it is supported (or the server does not say), rejects with
   * {@link RedisVersionError} when it is older than Redis 6.0, or with the error of the
   * `INFO` call when the server cannot be reached within `timeoutMs` (then the next call
   * checks again). Call it at startup to
   * fail there rather than in the first requests' `onStoreError`.
   */
  ready(): Promise<void> {
    return this.#version === true ? Promise.resolve() : this.#afterCheck(() => undefined);
  }

  /**
   * Runs `call` once the server's version is known to be supported. The first call sends
   * `INFO server`; calls made before its answer wait for it (at most `timeoutMs`). A server
   * below {@link MIN_REDIS_VERSION} fails every call with {@link RedisVersionError} (below
   * 6.0 every give-back would fail, and through the breaker fail every request). An `INFO`
   * the server refuses (an ACL without it) leaves the server unchecked; one that times out
   * or finds no connection fails the call (as the call itself would), and the next call
   * checks again.
   */
  #afterCheck<T>(call: () => T | Promise<T>): Promise<T> {
    let check = this.#version;
    if (check === true) return Promise.resolve().then(call);
    // Where one request's I/O must not settle another's (Workers: settled from a request
    // that has ended, it is cancelled), each call waits for a check of its own.
    if (check === undefined || ISOLATED_REQUESTS) {
      let info: Promise<string>;
      try {
        info = this.#driver.info();
      } catch (error) {
        info = Promise.reject(error);
      }
      check = this.#deadlines.wrap(info).then(
        (text) => {
          const version = redisVersionOf(String(text));
          if (version !== undefined && !isSupportedVersion(version)) {
            throw new RedisVersionError(version);
          }
          this.#version = true;
        },
        (error: unknown) => {
          // An error reply (`NOPERM`, `ERR unknown command`): the server answers but will
          // not say its version; run on it unchecked. Anything else (a timeout, a lost
          // connection) fails this call, and the next call checks again.
          if (error instanceof Error && /^[A-Z]{2,} /.test(error.message)) {
            this.#version = true;
            return;
          }
          this.#version = undefined;
          throw error;
        },
      );
      this.#version = check;
    }
    return check.then(call);
  }

  /**
   * Gives back every unit this process holds from option `prefetch` (and those of fetches
   * still in flight, once they land) and resolves when Redis has them; later requests are
   * decided in Redis one by one. Call it on shutdown, before closing the client: the store
   * installs no signal handler, so a process stopped by Ctrl-C (`SIGINT`) or `SIGTERM` gives
   * its units back only if the app calls it from its own handler. Does not close the client.
   * Resolves at once without `prefetch`. Also leaves the pub/sub connection of
   * {@link RedisStore.operations}, closing it when no other store on the client listens
   * (this store's limiters then hear of changes only from their `syncMs` check).
   *
   * @throws {@link PrefetchLostError} (a rejection) when units could not be given back:
   *   the client was closed first, or Redis did not answer within `timeoutMs`. It says how
   *   many units of how many keys stay charged (never which keys).
   *
   * @example
   * ```ts
   * for (const signal of ['SIGINT', 'SIGTERM'] as const) {
   *   process.once(signal, async () => {
   *     await store.close(); // first: the client must still be open
   *     await client.quit();
   *     process.exit(0);
   *   });
   * }
   * ```
   */
  async close(): Promise<void> {
    // The limiters' snapshots stop syncing (they keep deciding from what they have).
    releaseOperations(this.operations);
    await Promise.all([this.prefetcher?.close(), this.#operations.close()]);
  }

  /**
   * An error when the client knows its connection is lost. Such a call fails at once rather
   * than wait in the client's offline queue: that queue would run it after the reconnect,
   * long after its caller got a fallback decision (a denial that consumes, a ghost DEL).
   */
  #down(): Error | undefined {
    return this.#driver.down();
  }
}
