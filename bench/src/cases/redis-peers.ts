// bench:redis's limiters: sluice's RedisStore and every Redis-backed peer bench:http measures,
// each driven as its middleware drives it, never denying.
import { createRequire } from 'node:module';
import { RateLimiter } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { RedisStore } from '@sluice/redis';
import { GlideClient } from '@valkey/valkey-glide';
import { Redis } from 'ioredis';
import { Redis as Valkey } from 'iovalkey';
import { RedisStore as RateLimitRedisStore, type RedisReply } from 'rate-limit-redis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { createClient } from 'redis';

// @fastify/rate-limit's store and koa-ratelimit's limiter are CommonJS without types for these
// paths; loaded untyped, through the one call made here.
const require = createRequire(import.meta.url);

/** One decision on the subject `key` (rejects on a Redis failure). */
export type Consume = (key: string) => Promise<unknown>;

export interface RedisLimiter {
  /** As the report prints it. */
  label: string;
  /** Its configuration, as the report prints it. */
  config: string;
  /** The limiter on `client`, as a function deciding on one subject. */
  consumer(client: Redis): Consume;
}

/** sluice: RateLimiter + RedisStore, onStoreError 'deny' (a store failure aborts the run). */
export function sluice(label: string, algorithm: Algorithm, algorithmText: string): RedisLimiter {
  return {
    label,
    config: `RateLimiter + RedisStore({ client }) (server clock), ${algorithmText}, onStoreError: "deny", consume(key)`,
    consumer(client) {
      const store = new RedisStore({ client });
      const limiter = new RateLimiter({ algorithm, store, onStoreError: 'deny' });
      return async (key) => {
        const d = await limiter.consume(key);
        if (!d.allowed) throw new Error('sluice denied a request: the bench limits are wrong');
      };
    },
  };
}

/** rate-limiter-flexible: consume rejects when over the limit, never the case here. */
export const RLF: RedisLimiter = {
  label: 'rate-limiter-flexible RateLimiterRedis',
  config:
    'rate-limiter-flexible RateLimiterRedis({ storeClient, useRedisPackage: false, points: 1e12, duration: 60 }), consume(key)',
  consumer(client) {
    const limiter = new RateLimiterRedis({
      storeClient: client,
      useRedisPackage: false,
      points: 1e12,
      duration: 60,
    });
    return (key) => limiter.consume(key);
  },
};

/** What express-rate-limit's middleware calls on its store: `init` once, `increment(key)`. */
const EXPRESS: RedisLimiter = {
  label: 'express-rate-limit + rate-limit-redis',
  config:
    "express-rate-limit's store rate-limit-redis RedisStore({ sendCommand: (...args) => client.call(...args) }) (its default prefix 'rl:'), init({ windowMs: 60_000 }), increment(key)",
  consumer(client) {
    const store = new RateLimitRedisStore({
      sendCommand: (command: string, ...args: string[]) =>
        client.call(command, ...args) as Promise<RedisReply>,
    });
    store.init({ windowMs: 60_000 } as Parameters<RateLimitRedisStore['init']>[0]);
    return (key) => store.increment(key);
  },
};

interface FastifyRedisStore {
  incr(
    key: string,
    cb: (err: Error | null, res: unknown) => void,
    timeWindow: number,
    max: number,
  ): void;
}

/** What @fastify/rate-limit's onRequest hook calls with `{ redis: client }`: `incr`. */
const FASTIFY: RedisLimiter = {
  label: '@fastify/rate-limit Redis store',
  config:
    "@fastify/rate-limit's Redis store, what { redis: client } makes: store/RedisStore(continueExceeding false, exponentialBackoff false, client) (its default prefix 'fastify-rate-limit-'), incr(key, cb, 60_000, 1e9)",
  consumer(client) {
    const Store = require('@fastify/rate-limit/store/RedisStore') as new (
      continueExceeding: boolean,
      exponentialBackoff: boolean,
      redis: Redis,
    ) => FastifyRedisStore;
    const store = new Store(false, false, client);
    return (key) =>
      new Promise((resolve, reject) =>
        store.incr(key, (err, res) => (err ? reject(err) : resolve(res)), 60_000, 1e9),
      );
  },
};

/** What koa-ratelimit's middleware calls with `driver: 'redis'`: async-ratelimiter's `get`. */
const KOA: RedisLimiter = {
  label: "koa-ratelimit driver 'redis'",
  config:
    "koa-ratelimit's driver 'redis': koa-ratelimit/limiter/redis (async-ratelimiter, a sliding log: one sorted-set entry per decision) new Limiter({ db: client, max: 1e9, duration: 60_000 }) (its default namespace 'limit'), get({ id: key })",
  consumer(client) {
    const Limiter = require('koa-ratelimit/limiter/redis') as new (options: {
      db: Redis;
      max: number;
      duration: number;
    }) => { get(options: { id: string }): Promise<unknown> };
    const limiter = new Limiter({ db: client, max: 1e9, duration: 60_000 });
    return (key) => limiter.get({ id: key });
  },
};

/** Every peer, in the report's order. */
export const PEERS: RedisLimiter[] = [RLF, EXPRESS, FASTIFY, KOA];

/** A limiter on a client of its own. */
export interface Subject {
  label: string;
  consume: Consume;
  /** Resolves once the client answers. */
  ping(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * `limiter` on a client of its own (a rejection, e.g. RLF over its limit, aborts the run): ioredis,
 * or sluice on iovalkey (ioredis's fork: the same options), node-redis 6 or Valkey GLIDE (no
 * auto-pipelining option: each writes a tick's commands at once).
 */
export async function subject(
  port: number,
  limiter: RedisLimiter,
  autoPipelining: boolean,
  on: 'ioredis' | 'iovalkey' | 'node-redis 6' | 'valkey-glide' = 'ioredis',
): Promise<Subject> {
  const auto = autoPipelining ? ', auto-pipelining' : '';
  const label = `${limiter.label}${on === 'ioredis' ? '' : `, ${on}`}${auto}`;
  if (on === 'valkey-glide') {
    // GLIDE's default requestTimeout (250 ms) is the store's timeoutMs's to decide here.
    const client = await GlideClient.createClient({
      addresses: [{ host: '127.0.0.1', port }],
      requestTimeout: 10_000,
    });
    return {
      label,
      consume: limiter.consumer(client as unknown as Redis),
      ping: () => client.ping(),
      close: async () => client.close(),
    };
  }
  if (on === 'node-redis 6') {
    const client = createClient({ socket: { host: '127.0.0.1', port } });
    client.on('error', () => undefined);
    await client.connect();
    return {
      label,
      consume: limiter.consumer(client as unknown as Redis),
      ping: () => client.ping(),
      close: async () => client.destroy(),
    };
  }
  const Client = on === 'iovalkey' ? (Valkey as unknown as typeof Redis) : Redis;
  const client = new Client({ port, host: '127.0.0.1', enableAutoPipelining: autoPipelining });
  return {
    label,
    consume: limiter.consumer(client),
    ping: () => client.ping(),
    close: async () => client.disconnect(),
  };
}
