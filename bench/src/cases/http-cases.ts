/**
 * bench:http's cases as data: per case the framework, the unlimited variant and the limited
 * ones (sluice first, then its peers), sluice's floor and aim; and how each limiter is
 * configured, as the report prints it. The apps themselves are http-apps.ts / nest-apps.ts.
 */
import type { Framework as PlainFramework, Variant } from './http-apps.js';
import type { NestFramework } from './nest-apps.js';

export type Framework = PlainFramework | NestFramework;

export interface Group {
  /** For `--only` and the JSON. */
  id: string;
  title: string;
  framework: Framework;
  base: Variant;
  /** [variant, label] */
  limited: [Variant, string][];
  /** The minimum ratio sluice must reach (undefined: only "ahead of the peers"). */
  floor: number | undefined;
  /** The aim: req/s ratio at least `ratio`, and Δµs at most `us` when given. */
  aim: { ratio: number; us?: number };
}

export const GROUPS: Group[] = [
  {
    id: 'fastify-memory',
    title: 'Fastify, memory, allow',
    framework: 'fastify',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', '@fastify/rate-limit'],
    ],
    floor: 0.9,
    aim: { ratio: 0.95, us: 1 },
  },
  {
    id: 'fastify-deny',
    title: 'Fastify, memory, all denied (429)',
    framework: 'fastify',
    base: 'none',
    limited: [
      ['sluice-deny', 'sluice'],
      ['peer-deny', '@fastify/rate-limit'],
      ['rlf-deny', 'rate-limiter-flexible'],
    ],
    floor: undefined,
    aim: { ratio: 0.95, us: 2 },
  },
  {
    id: 'express-memory',
    title: 'Express, memory, allow',
    framework: 'express',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', 'express-rate-limit'],
    ],
    floor: 0.95,
    aim: { ratio: 0.97, us: 3 },
  },
  {
    id: 'koa-memory',
    title: 'Koa, memory, allow',
    framework: 'koa',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', 'koa-ratelimit'],
    ],
    floor: 0.95,
    aim: { ratio: 0.99 },
  },
  {
    id: 'fastify-redis',
    title: 'Fastify, Redis, allow',
    framework: 'fastify',
    base: 'none',
    limited: [
      ['sluice-redis', 'sluice'],
      ['peer-redis', '@fastify/rate-limit'],
      ['rlf-redis', 'rate-limiter-flexible'],
    ],
    floor: undefined,
    aim: { ratio: 0.7, us: 6 },
  },
  {
    id: 'fastify-redis-prefetch',
    title: 'Fastify, Redis + prefetch, allow',
    framework: 'fastify',
    base: 'none',
    limited: [
      ['sluice-prefetch-redis', 'sluice (prefetch)'],
      ['sluice-redis', 'sluice (no prefetch)'],
    ],
    floor: 0.85,
    aim: { ratio: 0.92 },
  },
  {
    id: 'koa-redis',
    title: 'Koa, Redis, allow',
    framework: 'koa',
    base: 'none',
    limited: [
      ['sluice-redis', 'sluice'],
      ['rlf-redis', 'rate-limiter-flexible'],
      ['peer-redis', 'koa-ratelimit'],
    ],
    floor: undefined,
    aim: { ratio: 0.8 },
  },
  {
    id: 'nest-express-memory',
    title: 'Nest on Express, memory, allow',
    framework: 'nest-express',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', '@nestjs/throttler'],
    ],
    floor: undefined,
    aim: { ratio: 0.95 },
  },
  {
    id: 'nest-express-deny',
    title: 'Nest on Express, memory, all denied (429)',
    framework: 'nest-express',
    base: 'none',
    limited: [
      ['sluice-deny', 'sluice'],
      ['peer-deny', '@nestjs/throttler'],
    ],
    floor: undefined,
    aim: { ratio: 0.95 },
  },
  {
    id: 'nest-express-redis',
    title: 'Nest on Express, Redis, allow',
    framework: 'nest-express',
    base: 'none',
    limited: [
      ['sluice-redis', 'sluice'],
      ['peer-redis', '@nestjs/throttler + @nest-lab/throttler-storage-redis'],
    ],
    floor: undefined,
    aim: { ratio: 0.8 },
  },
  {
    id: 'nest-fastify-memory',
    title: 'Nest on Fastify, memory, allow',
    framework: 'nest-fastify',
    base: 'none',
    limited: [
      ['sluice', 'sluice'],
      ['peer', '@nestjs/throttler'],
    ],
    floor: undefined,
    aim: { ratio: 0.95 },
  },
  {
    id: 'nest-fastify-deny',
    title: 'Nest on Fastify, memory, all denied (429)',
    framework: 'nest-fastify',
    base: 'none',
    limited: [
      ['sluice-deny', 'sluice'],
      ['peer-deny', '@nestjs/throttler'],
    ],
    floor: undefined,
    aim: { ratio: 0.95 },
  },
  {
    id: 'nest-fastify-redis',
    title: 'Nest on Fastify, Redis, allow',
    framework: 'nest-fastify',
    base: 'none',
    limited: [
      ['sluice-redis', 'sluice'],
      ['peer-redis', '@nestjs/throttler + @nest-lab/throttler-storage-redis'],
    ],
    floor: undefined,
    aim: { ratio: 0.8 },
  },
  {
    id: 'koa-redis-prefetch',
    title: 'Koa, Redis + prefetch, allow',
    framework: 'koa',
    base: 'none',
    limited: [
      ['sluice-prefetch-redis', 'sluice (prefetch)'],
      ['sluice-redis', 'sluice (no prefetch)'],
    ],
    floor: 0.85,
    aim: { ratio: 0.95 },
  },
];

/** The variants that talk to the bench's redis-server (its port is passed to the server). */
export const needsRedis = (v: Variant) => v.endsWith('-redis');

export const aimText = (g: Group) =>
  `>= ${g.aim.ratio.toFixed(2)}${g.aim.us === undefined ? '' : `, <= +${g.aim.us} µs`}`;
export const floorText = (g: Group) =>
  `${g.floor === undefined ? '' : `>= ${g.floor.toFixed(2)}, `}ahead of peers`;

export const SLUICE_CONFIG =
  "'throttle:60000000,1000' (GCRA, T = 1 ms, burst 6e7: never denies) / 'throttle:1,60' (denied rows), MemoryStore (Redis rows: RedisStore({ client }), onStoreError 'deny'), keyed per IP, legacy X-RateLimit-* headers";
export const PEERS_CONFIG =
  'express-rate-limit({ limit: 1e9 }), @fastify/rate-limit({ max: 1e9 } / { max: 1, timeWindow: 1 h } / Redis row: { max: 1e9, redis: client }), ' +
  "koa-ratelimit({ driver: 'memory', db: new Map(), max: 1e9 } / Redis row: { driver: 'redis', db: client, max: 1e9 }; its Redis driver is a sliding log, one sorted-set entry per request kept for the 60 s window), " +
  'rate-limiter-flexible RateLimiterMemory({ points: 1, duration: 3600 }) in a Fastify onRequest hook / Redis rows: RateLimiterRedis({ storeClient: client, useRedisPackage: false, points: 1e9, duration: 60 }) in a Fastify onRequest hook or a Koa middleware, setting X-RateLimit-Limit/-Remaining/-Reset; every peer keyed per IP, 60 s window unless said';
export const REDIS_CLIENT =
  "one ioredis client per server process, new Redis({ host: '127.0.0.1', port })";

/** `--baselines`: [variant, label] measured beside the limiters of every selected case. */
export const BASELINES: [Variant, string][] = [
  ['noop', 'baseline: no-op middleware'],
  ['headers', 'baseline: the 3 headers only'],
  ['sluice-bare', 'baseline: sluice, headers: false'],
];
