import { type Duration, SluiceConfigError } from '@sluice/core';
import {
  checkOptionNames,
  isRedisClientLike,
  optionNames,
  parseOperationsOption,
} from '@sluice/core/store';
import {
  type RedisClient,
  type ScriptClient,
  SUPPORTED_CLIENTS,
  scriptClient,
} from './clients/client.js';
import { isGlideShaped } from './clients/glide.js';
import { checkNodeRedisOpen } from './clients/node-redis.js';
import { type PrefetchConfig, type PrefetchOptions, parsePrefetch } from './prefetch/options.js';
import { ISOLATED_REQUESTS } from './runtime/isolation.js';

const REDIS_STORE_OPTIONS = optionNames<RedisStoreOptions>({
  client: true,
  prefix: true,
  hashTag: true,
  clock: true,
  timeoutMs: true,
  prefetch: true,
  operations: true,
});

/** Option `operations` of {@link RedisStore}. */
export interface OperationsOptions {
  /**
   * How often each process re-checks the version of the operator entries (`LimitOperations`)
   * in Redis, **ms** or a duration string: a process that missed a pub/sub message (its
   * connection lost, a Cluster failover) obeys the change within this. Costs one command
   * per prefix per `syncMs` per process, none per decision. Default 5 s;
   * `LimitOperations({ syncMs })` overrides it for its prefix in its process.
   */
  syncMs?: Duration;
}

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /**
   * The Redis client, told apart by shape: ioredis or iovalkey (`new Redis(...)`,
   * `new Cluster(...)`, `new Redis({ sentinels, name })`), or node-redis 5/6
   * (`createClient()`, `createCluster()`, `createSentinel()` of the `redis` package; call
   * its `connect()` yourself), or a Valkey GLIDE 2.3+ client (`@valkey/valkey-glide`:
   * `await GlideClient.createClient(...)`, `await GlideClusterClient.createClient(...)`; no
   * Sentinel in GLIDE; give it a `requestTimeout` above `timeoutMs`, its default is 250 ms),
   * or an `@upstash/redis` 1.35+ `Redis` (`new Redis({ url,
   * token })`, `Redis.fromEnv()`: Redis over HTTP, on any runtime; a turn's decisions in one
   * `/pipeline` request; on Cloudflare Workers no batch across requests and no `prefetch`).
   * The store never closes it.
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
  /**
   * The operator entries' propagation (`LimitOperations`): `{ syncMs }`, see
   * {@link OperationsOptions}. Nothing to set for them to work.
   *
   * @example
   * ```ts
   * new RedisStore({ client, operations: { syncMs: '1s' } })
   * ```
   */
  operations?: OperationsOptions;
}

/** {@link RedisStoreOptions} once checked: every option set, the client resolved. */
export interface StoreConfig {
  client: RedisClient;
  /** The client as the store drives it, resolved once. */
  driver: ScriptClient;
  prefix: string;
  hashTag: boolean;
  clock: 'server' | 'client';
  timeoutMs: number;
  prefetch: PrefetchConfig | undefined;
  /** Option `operations.syncMs` in ms; undefined: the core's default. */
  syncMs: number | undefined;
}

/**
 * Checks the options of `new RedisStore()` and resolves its client.
 *
 * @throws {@link SluiceConfigError} naming `options`, `client`, `prefix`, `hashTag`,
 *   `clock`, `timeoutMs`, `prefetch.*`, `operations.syncMs` or an unknown option name.
 */
export function parseStoreOptions(options: RedisStoreOptions): StoreConfig {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError(
      'options',
      options,
      'an object { client, prefix?, hashTag?, clock?, timeoutMs?, prefetch? }',
    );
  }
  // A GLIDE client is told here, not by the core's isRedisClientLike (in every Worker bundle).
  if (isRedisClientLike(options) || isGlideShaped(options)) {
    throw new SluiceConfigError('options', options, 'an object { client, … }', {
      hint: 'pass the client as an option: `new RedisStore({ client })`',
    });
  }
  checkOptionNames(options, REDIS_STORE_OPTIONS, 'new RedisStore()');
  const { client, prefix = '', clock = 'server', timeoutMs = 500 } = options;
  const driver = scriptClient(client);
  if (driver === undefined) throw new SluiceConfigError('client', client, SUPPORTED_CLIENTS);
  checkNodeRedisOpen(client, driver.kind);
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
  if (ISOLATED_REQUESTS && options.prefetch !== undefined) {
    throw new SluiceConfigError('prefetch', options.prefetch, '', {
      message:
        'sluice: invalid option "prefetch": not available on Cloudflare Workers, where one ' +
        "request's I/O cannot answer another request's calls (a fetch of units shared by " +
        "requests would hang them) and a holding's give-back timer ends with the request that " +
        'set it (its units would stay charged). Remove `prefetch`: each decision is one script call',
    });
  }
  return {
    client,
    driver,
    prefix,
    hashTag,
    clock,
    timeoutMs,
    prefetch: parsePrefetch(options.prefetch),
    syncMs: parseOperations(options.operations),
  };
}

/** Option `operations`: its `syncMs` in whole ms (at least 1), or undefined. */
function parseOperations(operations: OperationsOptions | undefined): number | undefined {
  return parseOperationsOption(operations, 'RedisStore');
}
