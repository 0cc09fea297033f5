import { type Decision, SluiceConfigError, type Store } from '@sluice/core';
import {
  type Algorithm,
  checkOptionNames,
  fullKey,
  isRedisClientLike,
  optionNames,
  type StoreRequest,
} from '@sluice/core/store';
import { AllOrNothing, type Part } from './batching/all-or-nothing.js';
import { DeadlineQueue } from './batching/deadline-queue.js';
import { masterOf } from './batching/engine.js';
import { ServerClocks } from './batching/server-clock.js';
import { SingleKeyBatches } from './batching/single-key.js';
import { CALENDAR_WINDOW } from './calendar-window.lua.js';
import {
  type RedisClient,
  type ScriptClient,
  SUPPORTED_CLIENTS,
  scriptClient,
} from './clients/client.js';
import {
  isSupportedVersion,
  type MIN_REDIS_VERSION,
  RedisVersionError,
  redisVersionOf,
} from './clients/version.js';
import { FIXED_WINDOW } from './fixed-window.lua.js';
import { GCRA } from './gcra.lua.js';
import type { LuaTwin } from './lua-common.js';
import { penaltyTwin } from './penalty.lua.js';
import { Prefetch } from './prefetch.js';
import { type PrefetchOptions, parsePrefetch } from './prefetch-options.js';
import { keySlot, redisKey } from './redis-key.js';
import { SLIDING_LOG } from './sliding-log.lua.js';
import { SLIDING_WINDOW } from './sliding-window.lua.js';

const REDIS_STORE_OPTIONS = optionNames<RedisStoreOptions>({
  client: true,
  prefix: true,
  hashTag: true,
  clock: true,
  timeoutMs: true,
  prefetch: true,
});

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /**
   * The Redis client, told apart by shape: ioredis or iovalkey (`new Redis(...)`,
   * `new Cluster(...)`, `new Redis({ sentinels, name })`), or node-redis 5/6
   * (`createClient()`, `createCluster()`, `createSentinel()` of the `redis` package; call
   * its `connect()` yourself). The store never closes it.
   */
  client: RedisClient;
  /** Prepended to every Redis key, before the hash tag; no `{` or `}`. Default `''`. */
  prefix?: string;
  /**
   * Whether Redis keys carry a Cluster hash tag: `<prefix>{<key>}` when true,
   * `<prefix><key>` when false (see `redisKey` for the hashing of long or unusual keys,
   * the same in both forms). Default `client.isCluster`: tagged on a `Cluster`, untagged on
   * a standalone `Redis`, where the braces would only cost memory. Pass `true` on a
   * standalone `Redis` to store the keys a Cluster would use (e.g. before migrating its
   * data to a Cluster); `false` on a `Cluster` is a config error, since every key of one
   * limit must share a slot there.
   */
  hashTag?: boolean;
  /**
   * Whose clock decides: `'server'` (default) takes the time from Redis `TIME`, so app
   * servers' clocks do not matter; `'client'` uses the limiter's `clock` (tests, or when
   * every server's clock is trusted).
   */
  clock?: 'server' | 'client';
  /**
   * A call that takes longer than this many **ms** rejects with `StoreTimeoutError`, which the
   * limiter's `onStoreError` policy handles. Default 500.
   */
  timeoutMs?: number;
  /**
   * Off by default. `{ units, ttl }`: a process takes up to `units` of a key's quota in one
   * script call (charged in Redis at once), decides the key's next requests from them in
   * process, with no round trip, and gives back exactly what it did not use when `ttl`
   * (ms, or a string such as `'100ms'`) ends, or on {@link RedisStore.close}. N processes
   * together never admit more than the quota. Fewer units are fetched as a key nears its
   * limit (at most a quarter of what is left), so a key with little left is decided in
   * Redis request by request. For hot keys (many decisions per key per `ttl`); the price:
   * units one process holds are unavailable to another for at most `ttl`, and a crashed
   * process loses at most `units` per key until the bucket refills. Concurrency limits
   * are never prefetched. Envoy's rate limit quota service and Kong's `sync_rate` do this in
   * gateways.
   *
   * @example
   * ```ts
   * new RedisStore({ client, prefetch: { units: 50, ttl: '100ms' } })
   * ```
   */
  prefetch?: PrefetchOptions;
}

/** The algorithm families a store runs: all but `'adaptive'` (`Limit.adaptive`, decided in process). */
type StoredKind = Exclude<Algorithm['kind'], 'adaptive'>;

/** Each algorithm's Lua twin, by `Algorithm.kind`. */
const TWINS: Readonly<Record<StoredKind, LuaTwin>> = {
  gcra: GCRA,
  'fixed-window': FIXED_WINDOW,
  'sliding-window': SLIDING_WINDOW,
  'sliding-log': SLIDING_LOG,
  'calendar-window': CALENDAR_WINDOW,
};

/**
 * {@link TWINS} as a Map: a custom Algorithm's `kind` can be any value, and one like
 * `'constructor'` must not find an Object property.
 */
const TWIN_OF_KIND: ReadonlyMap<unknown, LuaTwin> = new Map(Object.entries(TWINS));

/** The penalty twin (`Limit.blockFor`) of each twin, by the inner algorithm's kind. */
const PENALTY_OF_KIND: ReadonlyMap<unknown, LuaTwin> = new Map(
  Object.entries(TWINS).map(([kind, twin]) => [kind, penaltyTwin(twin)]),
);

/** The twin that runs `algorithm`: its kind's, or for a penalty its inner kind's penalty twin. */
function twinOf(algorithm: Algorithm): LuaTwin | undefined {
  const inner = algorithm.inner;
  if (inner !== undefined) {
    return inner.inner === undefined ? PENALTY_OF_KIND.get(inner.kind) : undefined;
  }
  return TWIN_OF_KIND.get(algorithm.kind);
}

/** The Lua source of each algorithm's twin, by `Algorithm.kind` (for tools and tests). */
export const LUA_SOURCES: Readonly<Record<StoredKind, string>> = Object.fromEntries(
  Object.entries(TWINS).map(([kind, twin]) => [kind, twin.single.source]),
) as Record<StoredKind, string>;

/** The rejection of a call whose algorithm has a kind with no Lua twin (a custom Algorithm). */
function noTwin(kind: unknown): TypeError {
  const name = typeof kind === 'string' ? JSON.stringify(kind) : String(kind);
  return new TypeError(
    `sluice: RedisStore has no Lua twin for algorithm kind ${name} (it runs ${Object.keys(TWINS).join(', ')})`,
  );
}

/**
 * A {@link Store} on Redis, Valkey, Redis Cluster or Sentinel, through ioredis 5/6, iovalkey
 * or node-redis 5/6 (one code for all: see the option `client`): every decision is one `EVALSHA` of
 * the algorithm's Lua twin (reloaded with `EVAL` on `NOSCRIPT`), atomic, so any number of
 * processes sharing a key admit exactly the limit. Every key has an expiry, so idle keys
 * leave Redis. Keys are `<prefix><key>` on a standalone `Redis` and `<prefix>{<key>}` (a
 * hash tag) on a `Cluster`; option `hashTag` and `redisKey` tell more.
 *
 * A call that times out charges nothing, even if Redis runs it later (after a stall): each
 * script carries its callers' deadline on Redis's own clock (the offset from this process's
 * clock is measured from the `TIME` each reply carries) and does nothing once it is past.
 * Only a call whose script ran in time but whose reply arrived too late (the reply itself
 * held up) can still be charged. Until the first reply from a server, calls carry no
 * deadline.
 *
 * ```ts
 * const store = new RedisStore({ client: new Redis(), timeoutMs: 200 });
 * const limiter = new RateLimiter({ algorithm: gcra({ rate: 60, period: '1m' }), store });
 * ```
 *
 * @throws {@link SluiceConfigError} naming `client`, `prefix`, `hashTag`, `clock`,
 *   `timeoutMs` or an unknown option name; for a client given as the options
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
  /**
   * The prefetch (option `prefetch`), undefined when off. Exposed for tests and tools:
   * `held(key)` is what this process holds of a key.
   * @internal
   */
  readonly prefetcher: Prefetch | undefined;
  readonly #driver: ScriptClient;
  /** The server's version check: undefined before the first call, true once passed. */
  #version: Promise<void> | true | undefined;
  /** The last algorithm `consume` was called with, and its twin. */
  #lastAlgorithm: Algorithm | undefined;
  #lastTwin: LuaTwin | undefined;

  constructor(options: RedisStoreOptions) {
    if (options === null || typeof options !== 'object') {
      throw new SluiceConfigError(
        'options',
        options,
        'an object { client, prefix?, hashTag?, clock?, timeoutMs?, prefetch? }',
      );
    }
    if (isRedisClientLike(options)) {
      throw new SluiceConfigError('options', options, 'an object { client, … }', {
        hint: 'pass the client as an option: `new RedisStore({ client })`',
      });
    }
    checkOptionNames(options, REDIS_STORE_OPTIONS, 'new RedisStore()');
    const { client, prefix = '', clock = 'server', timeoutMs = 500 } = options;
    const driver = scriptClient(client);
    if (driver === undefined) throw new SluiceConfigError('client', client, SUPPORTED_CLIENTS);
    const cluster = driver.cluster;
    const { hashTag = cluster } = options;
    if (typeof hashTag !== 'boolean' || (cluster && !hashTag)) {
      throw new SluiceConfigError(
        'hashTag',
        hashTag,
        cluster ? 'true (or unset) on a Cluster' : 'a boolean',
      );
    }
    // Braces in the prefix would be the key's hash tag: every key in one Cluster slot.
    if (typeof prefix !== 'string' || prefix.includes('{') || prefix.includes('}')) {
      throw new SluiceConfigError('prefix', prefix, 'a string without { or }');
    }
    if (clock !== 'server' && clock !== 'client') {
      throw new SluiceConfigError('clock', clock, "'server' or 'client'");
    }
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new SluiceConfigError('timeoutMs', timeoutMs, 'a finite number of ms > 0');
    }
    this.client = client;
    this.#driver = driver;
    this.prefix = prefix;
    this.hashTag = hashTag;
    this.clock = clock;
    this.timeoutMs = timeoutMs;
    this.#deadlines = new DeadlineQueue(timeoutMs);
    const clocks = new ServerClocks();
    const down = () => this.#down();
    const deadlines = this.#deadlines;
    this.#singleKey = new SingleKeyBatches({ client, cluster, deadlines, clocks, down });
    const twins = [...Object.values(TWINS), ...PENALTY_OF_KIND.values()];
    this.#allOrNothing = new AllOrNothing({ client, cluster, deadlines, clocks, twins });
    const prefetch = parsePrefetch(options.prefetch);
    this.prefetcher =
      prefetch &&
      new Prefetch({
        config: prefetch,
        client,
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
    if (cluster) this.failureDomain = (key) => masterOf(client, keySlot(this.keyFor(key))) ?? '';
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
    if (prefetch?.handles(algorithm)) {
      if (cost > 0) {
        const now = this.clock === 'client' ? nowMs : '';
        return prefetch.consume(key, twin, algorithm, cost, now, nowMs);
      }
      return this.#decide(twin, key, algorithm, 0, nowMs).then((peek) =>
        prefetch.withHeld(key, algorithm, peek),
      );
    }
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
    const prefetch = this.prefetcher;
    if (prefetch !== undefined && requests.every((r) => prefetch.handles(r.algorithm))) {
      const now = this.clock === 'client' ? nowMs : '';
      const decided = prefetch.consumeAll(requests.map(fullKey), parts, now, nowMs);
      if (decided !== undefined) return Promise.resolve(decided);
    }
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

  async reset(key: string): Promise<void> {
    if (this.#version !== true) await this.#afterCheck(() => Promise.resolve());
    const down = this.#down();
    if (down) throw down;
    // Decisions asked for before this reset reach Redis before its DEL.
    this.#singleKey.flush();
    this.#allOrNothing.flush();
    this.prefetcher?.forget(key);
    this.prefetcher?.flush();
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
    if (check === undefined) {
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
   * decided in Redis one by one. Call it on shutdown, before closing the client. Does not
   * close the client. Resolves at once without `prefetch`.
   *
   * @example
   * ```ts
   * process.on('SIGTERM', async () => { await store.close(); await client.quit(); });
   * ```
   */
  async close(): Promise<void> {
    await this.prefetcher?.close();
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
