// The limiters of the fault matrix, each as one app process drives it: sluice's RateLimiter
// on RedisStore (an algorithm, an onStoreError policy, prefetch, a clock) and the Redis peers
// at their installed versions (bench/package.json), driven as their middlewares drive them.
import { RateLimiter } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { RedisStore } from '@sluice/redis';
import { startUpstashBridge, type UpstashBridge } from '@sluice/test-kit';
import { Ratelimit } from '@upstash/ratelimit';
import { Redis as UpstashRedis } from '@upstash/redis';
import { GlideClient } from '@valkey/valkey-glide';
import { RedisStore as HonoRedisStore } from 'hono-rate-limiter';
import { Redis } from 'ioredis';
import { RedisStore as RateLimitRedisStore, type RedisReply } from 'rate-limit-redis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

/** What one request got: admitted, denied (429), or an error (a 500, or no answer in time). */
export type Outcome = 'admitted' | 'denied' | 'error';

/** One app process's limiter, on its own client to the store at a port. */
export interface App {
  decide(key: string): Promise<Outcome>;
  /** Log lines the limiter wrote (sluice's logger; the peers log nothing). */
  logLines(): number;
  close(): Promise<void>;
}

export interface SubjectSpec {
  /** Short id, used in the cell id (`--cell`). */
  id: string;
  /** As the page shows it. */
  label: string;
  /** The peer's package@version, or undefined for sluice. */
  peer?: string;
  /** Connects one app (a GLIDE client connects before it answers, so it may be a promise). */
  app(port: number, clock: () => number): App | Promise<App>;
  /** Units of the limit charged in the store for `key` (at most `limit`), read on `port`. */
  charged(port: number, key: string): Promise<number>;
}

const client = (port: number): Redis => {
  const c = new Redis({ host: '127.0.0.1', port });
  c.on('error', () => undefined); // ioredis reports each reconnect; the outcomes count it
  return c;
};

export type Policy = 'deny' | 'insurance' | 'allow';
export type AlgorithmId = 'gcra' | 'fixed' | 'sliding' | 'log';

export interface SluiceOptions {
  algorithm: AlgorithmId;
  policy: Policy;
  limit: number;
  makeAlgorithm: (id: AlgorithmId, limit: number) => Algorithm;
  storeClock?: 'server' | 'client';
  timeoutMs?: number;
  prefetch?: { units: number; ttl: string };
  overLimitCache?: false;
  /** The client RedisStore drives: ioredis (the default) or Valkey GLIDE's GlideClient. */
  client?: 'ioredis' | 'glide';
}

const PREFIX = 'fm';

export function sluiceSubject(o: SluiceOptions): SubjectSpec {
  const parts: string[] = [o.algorithm, o.policy];
  if (o.storeClock === 'client') parts.push('client-clock');
  if (o.timeoutMs !== undefined) parts.push(`t${o.timeoutMs}`);
  if (o.prefetch !== undefined) parts.push(`prefetch${o.prefetch.units}`);
  if (o.overLimitCache === false) parts.push('no-cache');
  if (o.client === 'glide') parts.push('glide');
  const extras = [
    o.client === 'glide' ? 'on a Valkey GLIDE GlideClient' : '',
    o.storeClock === 'client' ? "clock: 'client'" : '',
    o.timeoutMs === undefined ? '' : `timeoutMs: ${o.timeoutMs}`,
    o.prefetch === undefined
      ? ''
      : `prefetch: { units: ${o.prefetch.units}, ttl: '${o.prefetch.ttl}' }`,
    o.overLimitCache === false ? 'overLimitCache: false' : '',
  ].filter((x) => x !== '');
  return {
    id: `sluice-${parts.join('-')}`,
    label: `sluice ${o.algorithm}, ${o.policy}${extras.length > 0 ? `, ${extras.join(', ')}` : ''}`,
    async app(port, clock) {
      // GLIDE's own requestTimeout (default 250 ms) made long: the store's timeoutMs decides.
      const redis =
        o.client === 'glide'
          ? await GlideClient.createClient({
              addresses: [{ host: '127.0.0.1', port }],
              requestTimeout: 20_000,
            })
          : client(port);
      const store = new RedisStore({
        client: redis,
        ...(o.storeClock === undefined ? {} : { clock: o.storeClock }),
        ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
        ...(o.prefetch === undefined ? {} : { prefetch: o.prefetch }),
      });
      let lines = 0;
      const limiter = new RateLimiter({
        algorithm: o.makeAlgorithm(o.algorithm, o.limit),
        store,
        prefix: PREFIX,
        clock,
        onStoreError: o.policy,
        ...(o.overLimitCache === false ? { overLimitCache: false } : {}),
        logger: { warn: () => void lines++ },
      });
      return {
        decide: async (key) => ((await limiter.consume(key)).allowed ? 'admitted' : 'denied'),
        logLines: () => lines,
        async close() {
          await store.close().catch(() => undefined);
          if (redis instanceof GlideClient) redis.close();
          else redis.disconnect();
        },
      };
    },
    async charged(port, key) {
      const redis = client(port);
      try {
        const store = new RedisStore({ client: redis });
        const algorithm = o.makeAlgorithm(o.algorithm, o.limit);
        const peek = await new RateLimiter({ algorithm, store, prefix: PREFIX }).peek(key);
        return o.limit - peek.remaining;
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** rate-limiter-flexible RateLimiterRedis (a fixed window), optionally with its insuranceLimiter. */
export function rlfSubject(limit: number, version: string, insurance: boolean): SubjectSpec {
  const make = (redis: Redis) =>
    new RateLimiterRedis({
      storeClient: redis,
      useRedisPackage: false,
      points: limit,
      duration: 600,
      keyPrefix: 'rlf',
      ...(insurance
        ? { insuranceLimiter: new RateLimiterMemory({ points: limit, duration: 600 }) }
        : {}),
    });
  return {
    id: insurance ? 'rlf-insurance' : 'rlf',
    label: `rate-limiter-flexible RateLimiterRedis${insurance ? ' + insuranceLimiter (RateLimiterMemory)' : ''}`,
    peer: `rate-limiter-flexible@${version}`,
    app(port) {
      const redis = client(port);
      const limiter = make(redis);
      return {
        decide: (key) =>
          limiter.consume(key).then(
            () => 'admitted' as const,
            (e: unknown) => (e instanceof Error ? 'error' : 'denied'),
          ),
        logLines: () => 0,
        close: async () => redis.disconnect(),
      };
    },
    async charged(port, key) {
      const redis = client(port);
      try {
        const res = await make(redis).get(key);
        return Math.min(limit, res?.consumedPoints ?? 0);
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** express-rate-limit's store rate-limit-redis, as the middleware calls it (`increment`). */
export function erlSubject(limit: number, version: string, passOnStoreError: boolean): SubjectSpec {
  return {
    id: passOnStoreError ? 'erl-pass' : 'erl',
    label: `express-rate-limit + rate-limit-redis${passOnStoreError ? ', passOnStoreError: true' : ''}`,
    peer: `express-rate-limit@${version.split(' ')[0]}, rate-limit-redis@${version.split(' ')[1]}`,
    app(port) {
      const redis = client(port);
      const store = new RateLimitRedisStore({
        sendCommand: (command: string, ...args: string[]) =>
          redis.call(command, ...args) as Promise<RedisReply>,
      });
      store.init({ windowMs: 600_000 } as Parameters<RateLimitRedisStore['init']>[0]);
      return counterApp(redis, store, limit, passOnStoreError ? 'admitted' : 'error');
    },
    charged: counterCharged(limit, 'rl:'),
  };
}

/**
 * An app over a hit counter's store as express-rate-limit's and hono-rate-limiter's
 * middlewares call it: `increment`, a 429 past `limit`, `onError` when the store fails.
 */
function counterApp(
  redis: Redis,
  store: { increment(key: string): Promise<{ totalHits: number }> },
  limit: number,
  onError: Outcome,
): App {
  return {
    decide: (key) =>
      store.increment(key).then(
        ({ totalHits }) => (totalHits <= limit ? 'admitted' : 'denied'),
        () => onError,
      ),
    logLines: () => 0,
    close: async () => redis.disconnect(),
  };
}

/** The hits a counter at `prefix` + key holds (at most `limit`), read on `port`. */
function counterCharged(limit: number, prefix: string): SubjectSpec['charged'] {
  return async (port, key) => {
    const redis = client(port);
    try {
      return Math.min(limit, Number((await redis.get(`${prefix}${key}`)) ?? 0));
    } finally {
      redis.disconnect();
    }
  };
}

/**
 * hono-rate-limiter's RedisStore (a fixed window: INCR and PEXPIRE in one script, by EVALSHA),
 * as its middleware calls it: `increment`, a 429 past the limit, and a store error thrown
 * out of the middleware (Hono answers 500). No decrement: the middleware gives a hit back
 * only with skipFailedRequests or skipSuccessfulRequests, off by default.
 */
export function honoSubject(limit: number, version: string): SubjectSpec {
  return {
    id: 'hono-rl',
    label: 'hono-rate-limiter + its RedisStore',
    peer: `hono-rate-limiter@${version}`,
    app(port) {
      const redis = client(port);
      const store = new HonoRedisStore({
        client: {
          scriptLoad: (script) => redis.script('LOAD', script) as Promise<string>,
          evalsha: <TArgs extends unknown[], TData = unknown>(
            sha: string,
            keys: string[],
            args: TArgs,
          ) => redis.evalsha(sha, keys.length, ...keys, ...(args as string[])) as Promise<TData>,
          decr: (key) => redis.decr(key),
          del: (key) => redis.del(key),
        },
      });
      store.init({ windowMs: 600_000 } as Parameters<HonoRedisStore['init']>[0]);
      return counterApp(redis, store, limit, 'error');
    },
    charged: counterCharged(limit, 'hrl:'),
  };
}

/**
 * @upstash/ratelimit's fixed window on @upstash/redis (their defaults: the ephemeral cache of
 * keys over their limit, `timeout` 5 s after which a request passes, the client's retries),
 * over the REST protocol: each app talks HTTP to a bridge of its own (test-kit's
 * startUpstashBridge) that holds one RESP connection through the app's proxy, so a fault acts
 * between the bridge and redis-server as it would inside the hosted service; after a restart
 * the bridge opens a new connection at the next request.
 */
export function upstashSubject(limit: number, version: string): SubjectSpec {
  const make = (bridge: UpstashBridge) =>
    new Ratelimit({
      redis: new UpstashRedis({ url: bridge.url, token: bridge.token }),
      limiter: Ratelimit.fixedWindow(limit, '600 s'),
      prefix: 'upstash',
    });
  return {
    id: 'upstash',
    label: '@upstash/ratelimit fixedWindow + @upstash/redis (REST)',
    peer: `@upstash/ratelimit@${version.split(' ')[0]}, @upstash/redis@${version.split(' ')[1]}`,
    async app(port) {
      const bridge = await startUpstashBridge(port);
      const limiter = make(bridge);
      return {
        decide: (key) =>
          limiter.limit(key).then(
            ({ success }) => (success ? 'admitted' : 'denied'),
            () => 'error' as const,
          ),
        logLines: () => 0,
        close: () => bridge.close(),
      };
    },
    async charged(port, key) {
      const bridge = await startUpstashBridge(port);
      try {
        return Math.min(limit, limit - (await make(bridge).getRemaining(key)).remaining);
      } finally {
        await bridge.close();
      }
    },
  };
}

/**
 * `--break naive-timeout`: a limiter that breaks sluice's "a call that timed out charges
 * nothing": INCR with a 500 ms client-side timeout and 'deny' on it, so a stalled Redis runs
 * the INCRs later and keeps units no request got. It takes sluice's place (and its bound) in
 * its cells, to show the gate fails.
 */
export function naiveSubject(limit: number, tag: string): SubjectSpec {
  return {
    id: `naive-timeout-${tag}`,
    label: 'BROKEN ON PURPOSE: INCR with a client-side timeout (stands in for sluice)',
    app(port) {
      const redis = client(port);
      return {
        async decide(key) {
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((r) => {
            timer = setTimeout(() => r('late'), 500);
          });
          const count = redis.incr(`naive:${key}`);
          const got = await Promise.race([count, late]).finally(() => clearTimeout(timer));
          if (got === 'late') return 'denied';
          return got <= limit ? 'admitted' : 'denied';
        },
        logLines: () => 0,
        close: async () => redis.disconnect(),
      };
    },
    charged: counterCharged(limit, 'naive:'),
  };
}
