// bench:http's cases as data: per case the framework, the unlimited variant and the limited ones
// (sluice first, then its peers), and each limiter's configuration as the report prints it.
import type { Framework as PlainFramework, Variant } from './http-apps.js';
import type { NestFramework } from './nest-apps.js';

export type Framework = PlainFramework | NestFramework;

export interface Group {
  /** For `--only`, the JSON and bench/targets.json's http targets. */
  id: string;
  title: string;
  framework: Framework;
  base: Variant;
  /** [variant, label]: sluice first, then its peers. */
  limited: [Variant, string][];
}

const group = (id: string, title: string, framework: Framework, limited: [Variant, string][]) =>
  ({ id, title, framework, base: 'none', limited }) as Group;
const THROTTLER = '@nestjs/throttler';
const THROTTLER_REDIS = '@nestjs/throttler + @nest-lab/throttler-storage-redis';
/** The Nest cases, the same three on each platform. */
const nest = (framework: 'nest-express' | 'nest-fastify', on: string): Group[] => [
  group(`${framework}-memory`, `Nest on ${on}, memory, allow`, framework, [
    ['sluice', 'sluice'],
    ['peer', THROTTLER],
  ]),
  group(`${framework}-deny`, `Nest on ${on}, memory, all denied (429)`, framework, [
    ['sluice-deny', 'sluice'],
    ['peer-deny', THROTTLER],
  ]),
  group(`${framework}-redis`, `Nest on ${on}, Redis, allow`, framework, [
    ['sluice-redis', 'sluice'],
    ['peer-redis', THROTTLER_REDIS],
  ]),
];
/** sluice with prefetch beside sluice without it, on `framework`'s Redis row. */
const prefetch = (framework: 'fastify' | 'koa', on: string) =>
  group(`${framework}-redis-prefetch`, `${on}, Redis + prefetch, allow`, framework, [
    ['sluice-prefetch-redis', 'sluice (prefetch)'],
    ['sluice-redis', 'sluice (no prefetch)'],
  ]);

/** Every case, in the order they run and print. */
export const GROUPS: Group[] = [
  group('fastify-memory', 'Fastify, memory, allow', 'fastify', [
    ['sluice', 'sluice'],
    ['peer', '@fastify/rate-limit'],
  ]),
  group('fastify-deny', 'Fastify, memory, all denied (429)', 'fastify', [
    ['sluice-deny', 'sluice'],
    ['peer-deny', '@fastify/rate-limit'],
    ['rlf-deny', 'rate-limiter-flexible'],
  ]),
  group('express-memory', 'Express, memory, allow', 'express', [
    ['sluice', 'sluice'],
    ['peer', 'express-rate-limit'],
  ]),
  group('koa-memory', 'Koa, memory, allow', 'koa', [
    ['sluice', 'sluice'],
    ['peer', 'koa-ratelimit'],
  ]),
  group('fastify-redis', 'Fastify, Redis, allow', 'fastify', [
    ['sluice-redis', 'sluice'],
    ['peer-redis', '@fastify/rate-limit'],
    ['rlf-redis', 'rate-limiter-flexible'],
  ]),
  prefetch('fastify', 'Fastify'),
  group('koa-redis', 'Koa, Redis, allow', 'koa', [
    ['sluice-redis', 'sluice'],
    ['rlf-redis', 'rate-limiter-flexible'],
    ['peer-redis', 'koa-ratelimit'],
  ]),
  group('hono-memory', 'Hono on Node, memory, allow', 'hono', [
    ['sluice', 'sluice'],
    ['peer', 'hono-rate-limiter'],
    ['headers', 'baseline: the 3 headers only'],
  ]),
  ...nest('nest-express', 'Express'),
  ...nest('nest-fastify', 'Fastify'),
  prefetch('koa', 'Koa'),
];

/** The variants that talk to the bench's redis-server (its port is passed to the server). */
export const needsRedis = (v: Variant) => v.endsWith('-redis');

export const SLUICE_CONFIG =
  "'throttle:60000000,1000' (GCRA, T = 1 ms, burst 6e7: never denies) / 'throttle:1,60' (denied rows), MemoryStore (Redis rows: RedisStore({ client }), onStoreError 'deny'), keyed per IP, legacy X-RateLimit-* headers";
export const PEERS_CONFIG =
  'express-rate-limit({ limit: 1e9 }), @fastify/rate-limit({ max: 1e9 } / { max: 1, timeWindow: 1 h } / Redis row: { max: 1e9, redis: client }), ' +
  "koa-ratelimit({ driver: 'memory', db: new Map(), max: 1e9 } / Redis row: { driver: 'redis', db: client, max: 1e9 }; its Redis driver is a sliding log, one sorted-set entry per request kept for the 60 s window), " +
  "hono-rate-limiter({ windowMs: 60_000, limit: 1e9, keyGenerator: the socket's address }), " +
  'rate-limiter-flexible RateLimiterMemory({ points: 1, duration: 3600 }) in a Fastify onRequest hook / Redis rows: RateLimiterRedis({ storeClient: client, useRedisPackage: false, points: 1e9, duration: 60 }) in a Fastify onRequest hook or a Koa middleware, setting X-RateLimit-Limit/-Remaining/-Reset; every peer keyed per IP, 60 s window unless said';
export const REDIS_CLIENT =
  "one ioredis client per server process, new Redis({ host: '127.0.0.1', port })";

/** `--baselines`: [variant, label] measured beside the limiters of every selected case. */
export const BASELINES: [Variant, string][] = [
  ['noop', 'baseline: no-op middleware'],
  ['headers', 'baseline: the 3 headers only'],
  ['sluice-bare', 'baseline: sluice, headers: false'],
];
