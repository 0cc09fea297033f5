import {
  type HeadersOption,
  type LimitAlgorithmFactory,
  type LimitInput,
  SluiceConfigError,
  type Store,
  type StoreErrorPolicy,
  type StoreFailureLogger,
  type ThrottleRegistry,
} from '@sluice/core';
import type { CostOptions } from './cost/analyzer.js';

/**
 * Options of `useSluice` (GraphQL Yoga / envelop) and `sluiceApollo` (Apollo Server).
 * `Context` is the server's GraphQL context.
 */
// biome-ignore lint/suspicious/noExplicitAny: the server's context, any shape by default
export interface SluiceGraphqlOptions<Context = any> extends CostOptions {
  /**
   * The budget in **points**: a throttle string (`'1000/hour'`, `'throttle:60,1'`,
   * `'throttle:graphql'` for a named limiter), a `Limit` (`Limit.perHour(5000)`), or an
   * array of them (all or nothing). Each operation reserves its requested cost under every
   * limit. Required.
   */
  limit: LimitInput;
  /**
   * The subject replacing user / IP: keys are then `<prefix>:<limit name>:<key>`. May be
   * async. Returning `undefined` falls back to user / IP.
   * @default none: the user (`user`), else the client IP (`ip`), IPv6 by /64
   */
  key?: (context: Context) => string | undefined | PromiseLike<string | undefined>;
  /** The user id. @default `context.user?.id` (a non-empty string or a finite number) */
  user?: (context: Context) => string | number | undefined;
  /**
   * The client IP. @default the Node request's socket address: `context.req` (Yoga on Node,
   * Apollo's `expressMiddleware` / `startStandaloneServer` when your context function
   * returns `{ req }`), else `context.request.ip`
   */
  ip?: (context: Context) => string | undefined;
  /** Where state lives (a `RedisStore` for a fleet). @default a MemoryStore per plugin */
  store?: Store;
  /** Where `'throttle:<name>'` is looked up. @default the process-wide `throttles` */
  throttles?: ThrottleRegistry;
  /** The algorithm each `Limit` runs on. @default GCRA, burst = the quota */
  algorithm?: LimitAlgorithmFactory;
  /** Key prefix. @default 'sl' */
  prefix?: string;
  /** ms since the Unix epoch. @default Date.now */
  clock?: () => number;
  /** Store failure policy. @default 'insurance' */
  onStoreError?: StoreErrorPolicy;
  /** Where notices go. @default console */
  logger?: StoreFailureLogger;
  /** IPv6 network prefix length for the IP subject. @default 64 */
  ipv6Subnet?: number;
  /**
   * Rate-limit headers on HTTP responses, as the HTTP middleware's `headers` option; the
   * draft-8+ policies say `qu="points"`. Yoga and Apollo only (envelop alone has no response).
   * @default false
   */
  headers?: HeadersOption;
  /** `extensions.cost` on every answer (`{ requested, actual, throttleStatus }`). @default true */
  extensions?: boolean;
  /**
   * The HTTP status of a limited answer (Yoga and Apollo). Shopify answers 200.
   * @default 429
   */
  statusCode?: number;
}

export const OPTION_NAMES = [
  'limit',
  'key',
  'user',
  'ip',
  'store',
  'throttles',
  'algorithm',
  'prefix',
  'clock',
  'onStoreError',
  'logger',
  'ipv6Subnet',
  'headers',
  'extensions',
  'statusCode',
  'costModel',
  'typeCosts',
  'fieldCosts',
  'defaultListSize',
] as const;

/** A function option, or its default; @throws SluiceConfigError naming it. */
export function fnOption<F>(name: string, value: unknown, fallback: F): F {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') throw new SluiceConfigError(name, value, 'a function');
  return value as F;
}
