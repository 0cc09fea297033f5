// The apps of bench:http and bench:http:inproc: `GET /` answering `hello world` on one framework,
// unlimited or behind one limiter (allowing ones never deny, denying ones allow 1 per hour), keyed per IP.

import type { RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Server } from 'node:net';
import type { FastifyPluginCallback } from 'fastify';
import type { Context } from 'hono';

// Express, Koa and koa-ratelimit have no types reachable from bench/ (their @types live with the adapters);
// they are loaded untyped, through the few calls made here.
const require = createRequire(import.meta.url);
type Handler = (...args: never[]) => unknown;
type NodeResponse = { setHeader(name: string, value: string): void };
interface App {
  use(fn: unknown): unknown;
  callback(): RequestListener;
  listen(port: number, host: string, cb: () => void): Server;
}
interface ExpressApp extends App {
  set(name: string, value: unknown): void;
  get(path: string, fn: (req: unknown, res: { send(body: string): void }) => void): void;
}

/** The prefetch of the `sluice-prefetch-redis` variant (RedisStore option `prefetch`). */
export const PREFETCH = { units: 100, ttl: '100ms' };

export const FRAMEWORKS = ['express', 'fastify', 'koa', 'hono'] as const;
export type Framework = (typeof FRAMEWORKS)[number];
export type Variant =
  | 'none'
  | 'sluice'
  | 'peer'
  | 'sluice-deny'
  | 'peer-deny'
  | 'rlf-deny'
  | 'sluice-redis'
  | 'sluice-prefetch-redis'
  | 'peer-redis'
  | 'rlf-redis'
  | 'noop'
  | 'headers'
  | 'sluice-bare'
  | 'sluice-metrics'
  | 'sluice-async'
  | 'sluice-plan';

/** `sluice-metrics`: metrics recorded into an OTel MeterProvider exporting hourly: recording's cost. */
let meterProvider: unknown;
async function metricsOption(): Promise<{ metrics?: { meterProvider: never } }> {
  if (meterProvider === undefined) {
    const sdk = await import('@opentelemetry/sdk-metrics');
    const exporter = new sdk.InMemoryMetricExporter(sdk.AggregationTemporality.CUMULATIVE);
    const reader = new sdk.PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: 3_600_000,
    });
    meterProvider = new sdk.MeterProvider({ readers: [reader] });
  }
  return { metrics: { meterProvider: meterProvider as never } };
}

/** Never denies: GCRA, 6e7 per 1000 min (a whole-ms interval) with a burst of 6e7. */
export const ALLOW = 'throttle:60000000,1000';
/** Denies all but the first request: 1 per 60 minutes. */
export const DENY = 'throttle:1,60';
export const BODY = 'hello world';

/** Fastify only: `sluice-async`, a limit from an async function; `sluice-plan`, a plan via lru-cache. */
async function resolverLimit(variant: 'sluice-async' | 'sluice-plan') {
  const { Limit } = await import('@sluice/core');
  const limit = Limit.perMinutes(1000, 60_000_000);
  if (variant === 'sluice-async') return async () => limit;
  const { LRUCache } = await import('lru-cache');
  const plans = new LRUCache<string, { perMinute: number }>({
    max: 10_000,
    ttl: 60_000,
    allowStale: true,
    fetchMethod: async () => ({ perMinute: 60_000_000 }),
  });
  return async (req: { ip: string }) => {
    const plan = await plans.fetch(req.ip);
    return Limit.perMinutes(1000, plan!.perMinute);
  };
}

/** The options of the sluice variants (`sluice`, `sluice-deny`, `sluice-bare`, `sluice-metrics`). */
async function sluiceOptions(variant: Variant) {
  if (variant === 'sluice-async' || variant === 'sluice-plan') {
    return { limit: await resolverLimit(variant), headers: 'legacy' as const };
  }
  return {
    limit: variant === 'sluice-deny' ? DENY : ALLOW,
    headers: variant === 'sluice-bare' ? (false as const) : ('legacy' as const),
    ...(variant === 'sluice-metrics' ? await metricsOption() : {}),
  };
}
/** The `headers` variant sets only these three headers: the cost of the headers alone. */
const HEADERS: [string, string][] = [
  ['X-RateLimit-Limit', '1000000000'],
  ['X-RateLimit-Remaining', '999999999'],
  ['X-RateLimit-Reset', '1763700000'],
];

const LOWERCASE_HEADERS = HEADERS.map(([n, v]): [string, string] => [n.toLowerCase(), v]);

type Listen = () => Promise<{ port: number; close: () => Promise<unknown> }>;

/** A built app: served on a port, or its Node request listener (in-process). */
export interface Built {
  listen: Listen;
  listener: () => Promise<RequestListener>;
}

/** An ioredis client to the bench's redis-server, the same options for sluice and the peers. */
export async function redisClient(port: number | undefined) {
  if (port === undefined || !Number.isInteger(port))
    throw new Error('a Redis variant needs the redis-server port as the third argument');
  const { Redis } = await import('ioredis');
  return new Redis({ host: '127.0.0.1', port });
}

/**
 * sluice's Redis variants: a RedisStore with onStoreError 'deny', so a Redis failure is a 429 that
 * aborts the run ('insurance' would answer from memory and measure the wrong thing).
 */
export async function sluiceRedisOptions(variant: Variant, redisPort: number | undefined) {
  const { RedisStore } = await import('@sluice/redis');
  const prefetch = variant === 'sluice-prefetch-redis' ? PREFETCH : undefined;
  const store = new RedisStore({ client: await redisClient(redisPort), prefetch });
  return { limit: ALLOW, store, onStoreError: 'deny' as const };
}

/** RLF's limiter for `rlf-deny` (memory, 1 per hour) and `rlf-redis` (never denies). */
async function rlfLimiter(variant: 'rlf-deny' | 'rlf-redis', redisPort: number | undefined) {
  const { RateLimiterMemory, RateLimiterRedis } = await import('rate-limiter-flexible');
  if (variant === 'rlf-deny')
    return { limiter: new RateLimiterMemory({ points: 1, duration: 3600 }), points: 1 };
  const storeClient = await redisClient(redisPort);
  const options = { storeClient, useRedisPackage: false, points: 1e9, duration: 60 };
  return { limiter: new RateLimiterRedis(options), points: 1e9 };
}

/** Listens on a free 127.0.0.1 port with a Node-style `app.listen` (Express, Koa). */
function listenNode(app: App): ReturnType<Listen> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise((r) => server.close(r)),
      }),
    );
  });
}

async function express(variant: Variant): Promise<Built> {
  const app = (require('express') as () => ExpressApp)();
  app.set('etag', false);
  app.set('x-powered-by', false);
  if (variant === 'sluice' || variant === 'sluice-bare' || variant === 'sluice-metrics') {
    const { rateLimit } = await import('@sluice/express');
    app.use(rateLimit(await sluiceOptions(variant)));
  } else if (variant === 'peer') {
    const { rateLimit } = await import('express-rate-limit');
    app.use(rateLimit({ windowMs: 60_000, limit: 1e9 }));
  } else if (variant === 'noop' || variant === 'headers') {
    const set = variant === 'headers';
    app.use((_req: unknown, res: NodeResponse, next: () => void) => {
      if (set) for (const [name, value] of HEADERS) res.setHeader(name, value);
      next();
    });
  } else if (variant !== 'none') throw new Error(`express: no variant ${variant}`);
  app.get('/', (_req, res) => {
    res.send(BODY);
  });
  return { listen: () => listenNode(app), listener: async () => app as unknown as RequestListener };
}

async function fastify(variant: Variant, redisPort?: number): Promise<Built> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  // Every sluice variant on the memory store.
  if (variant.startsWith('sluice') && !variant.endsWith('-redis')) {
    const { rateLimit } = await import('@sluice/fastify');
    await app.register(rateLimit, await sluiceOptions(variant));
  } else if (variant === 'sluice-redis' || variant === 'sluice-prefetch-redis') {
    const { rateLimit } = await import('@sluice/fastify');
    await app.register(rateLimit, await sluiceRedisOptions(variant, redisPort));
  } else if (variant === 'peer' || variant === 'peer-deny' || variant === 'peer-redis') {
    // Untyped: its `FastifyInstance.rateLimit` declaration would clash with @sluice/fastify's.
    const rateLimit = require('@fastify/rate-limit') as FastifyPluginCallback<{
      max: number;
      timeWindow: number;
      redis?: unknown;
    }>;
    // With `redis`, a Redis failure answers 500 (skipOnError is false), which aborts the run.
    await app.register(rateLimit, {
      max: variant === 'peer-deny' ? 1 : 1e9,
      timeWindow: variant === 'peer-deny' ? 3_600_000 : 60_000,
      ...(variant === 'peer-redis' ? { redis: await redisClient(redisPort) } : {}),
    });
  } else if (variant === 'rlf-deny' || variant === 'rlf-redis') {
    // RLF has no Fastify plugin: its README's middleware pattern, with the others' headers; a Redis
    // failure rejects with an Error: a 500, which aborts the run.
    const { RateLimiterRes } = await import('rate-limiter-flexible');
    const { limiter, points } = await rlfLimiter(variant, redisPort);
    app.addHook('onRequest', (request, reply, done) => {
      const set = (name: string, value: string) => reply.header(name, value);
      limiter.consume(request.ip).then(
        (res) => {
          rlfHeaders(set, points, res);
          done();
        },
        (err: unknown) => {
          if (!(err instanceof RateLimiterRes)) return done(err as Error);
          const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
          reply.header('Retry-After', seconds);
          rlfHeaders(set, points, { remainingPoints: 0, msBeforeNext: err.msBeforeNext });
          reply.code(429).send({
            statusCode: 429,
            error: 'Too Many Requests',
            message: `Rate limit exceeded, retry in ${seconds} seconds`,
          });
        },
      );
    });
  } else if (variant === 'noop' || variant === 'headers') {
    const set = variant === 'headers';
    app.addHook('onRequest', (_request, reply, done) => {
      // Lower case, as sluice and @fastify/rate-limit hand them to Fastify (which lowercases
      // every name it is given, and sends them so).
      if (set) for (const [name, value] of LOWERCASE_HEADERS) reply.header(name, value);
      done();
    });
  } else if (variant !== 'none') throw new Error(`fastify: no variant ${variant}`);
  app.get('/', async () => BODY);
  return {
    async listen() {
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
    },
    // Fastify's own request listener (what its server calls), after the plugins are loaded.
    async listener() {
      await app.ready();
      return app.routing as unknown as RequestListener;
    },
  };
}

/** The part of Koa's context the limiters here use. */
interface KoaContext {
  ip: string;
  status: number;
  body: unknown;
  set(name: string, value: string): void;
}

async function koa(variant: Variant, redisPort?: number): Promise<Built> {
  const Koa = require('koa') as new () => App;
  const { default: Router } = await import('@koa/router');
  const app = new Koa();
  if (variant === 'sluice' || variant === 'sluice-bare' || variant === 'sluice-metrics') {
    const { rateLimit } = await import('@sluice/koa');
    app.use(rateLimit(await sluiceOptions(variant)));
  } else if (variant === 'sluice-redis' || variant === 'sluice-prefetch-redis') {
    const { rateLimit } = await import('@sluice/koa');
    app.use(rateLimit(await sluiceRedisOptions(variant, redisPort)));
  } else if (variant === 'peer' || variant === 'peer-redis') {
    const ratelimit = require('koa-ratelimit') as (options: object) => Handler;
    // With `driver: 'redis'` (async-ratelimiter: a sliding log, one sorted-set entry per
    // request), a Redis failure throws: Koa answers 500, which aborts the run.
    const store =
      variant === 'peer'
        ? { driver: 'memory', db: new Map() }
        : { driver: 'redis', db: await redisClient(redisPort) };
    app.use(ratelimit({ ...store, duration: 60_000, max: 1e9, id: (ctx: KoaContext) => ctx.ip }));
  } else if (variant === 'rlf-redis') {
    // RLF's Koa middleware pattern (its README), as on Fastify; a Redis failure is rethrown: a 500.
    const { RateLimiterRes } = await import('rate-limiter-flexible');
    const { limiter, points } = await rlfLimiter(variant, redisPort);
    app.use(async (ctx: KoaContext, next: () => Promise<void>) => {
      let res: InstanceType<typeof RateLimiterRes>;
      try {
        res = await limiter.consume(ctx.ip);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        ctx.set('Retry-After', String(seconds));
        rlfHeaders((n, v) => ctx.set(n, v), points, err);
        ctx.status = 429;
        ctx.body = `Rate limit exceeded, retry in ${seconds} seconds`;
        return;
      }
      rlfHeaders((n, v) => ctx.set(n, v), points, res);
      await next();
    });
  } else if (variant === 'noop' || variant === 'headers') {
    const set = variant === 'headers';
    app.use((ctx: { res: NodeResponse }, next: () => Promise<void>) => {
      if (set) for (const [name, value] of HEADERS) ctx.res.setHeader(name, value);
      return next();
    });
  } else if (variant !== 'none') throw new Error(`koa: no variant ${variant}`);
  const router = new Router();
  router.get('/', (ctx: { body: unknown }) => {
    ctx.body = BODY;
  });
  app.use(router.routes());
  return { listen: () => listenNode(app), listener: async () => app.callback() };
}

/** The three X-RateLimit-* headers of RLF's middlewares (Fastify, Koa). */
function rlfHeaders(
  set: (name: string, value: string) => void,
  points: number,
  res: { remainingPoints: number; msBeforeNext: number },
): void {
  set('X-RateLimit-Limit', String(points));
  set('X-RateLimit-Remaining', String(res.remainingPoints));
  set('X-RateLimit-Reset', String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)));
}

/** Hono on Node (@hono/node-server); hono-rate-limiter keyed by the socket's address as sluice is. */
async function hono(variant: Variant): Promise<Built> {
  const [{ Hono }, { getRequestListener, serve }] = await Promise.all([
    import('hono'),
    import('@hono/node-server'),
  ]);
  const app = new Hono();
  if (variant === 'sluice' || variant === 'sluice-bare' || variant === 'sluice-metrics') {
    const { rateLimit } = await import('@sluice/hono');
    app.use(rateLimit(await sluiceOptions(variant)));
  } else if (variant === 'peer') {
    const [{ rateLimiter }, { getConnInfo }] = await Promise.all([
      import('hono-rate-limiter'),
      import('@hono/node-server/conninfo'),
    ]);
    const keyGenerator = (c: Context) => getConnInfo(c).remote.address ?? '';
    app.use(rateLimiter({ windowMs: 60_000, limit: 1e9, keyGenerator }));
  } else if (variant === 'noop' || variant === 'headers') {
    // Before next(): Hono puts them in the response as it is made (after, it copies it).
    const set = variant === 'headers' ? HEADERS : [];
    app.use(async (c, next) => {
      for (const [name, value] of set) c.header(name, value);
      await next();
    });
  } else if (variant !== 'none') throw new Error(`hono: no variant ${variant}`);
  app.get('/', (c) => c.text(BODY));
  return {
    listen: () =>
      new Promise((resolve) => {
        const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
          resolve({ port: info.port, close: () => new Promise((r) => server.close(r)) }),
        );
      }),
    listener: async () => getRequestListener(app.fetch),
  };
}

/** The app of `framework` with `variant`; `redisPort` for the `-redis` variants. */
export const BUILDERS: Record<Framework, typeof fastify> = { express, fastify, koa, hono };
