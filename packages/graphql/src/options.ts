import { type HeadersOption, type LimitInput, SluiceConfigError } from '@sluice/core';
import { PROTOCOL_STORE_OPTIONS, type ProtocolStoreOptions } from '@sluice/core/protocol';
import type { CostOptions } from './cost/analyzer.js';

/**
 * Options of `useSluice` (GraphQL Yoga / envelop) and `sluiceApollo` (Apollo Server).
 * `Context` is the server's GraphQL context.
 */
// biome-ignore lint/suspicious/noExplicitAny: the server's context, any shape by default
export interface SluiceGraphqlOptions<Context = any> extends CostOptions, ProtocolStoreOptions {
  /**
   * The budget in **points**: a throttle string (`'1000/hour'`, `'throttle:60,1'`,
   * `'throttle:graphql'` for a named limiter), a `Limit` (`Limit.perHour(5000)`), or an
   * array of them (all or nothing). Each operation reserves its requested cost under every
   * limit. Required.
   */
  limit: LimitInput;
  /**
   * The subject replacing user / IP: keys are then `<prefix>:<limit name>:<key>` (`sl@fw:…` on a fixed window, as on HTTP). May be
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
  ...PROTOCOL_STORE_OPTIONS,
  'headers',
  'extensions',
  'statusCode',
  'costModel',
  'typeCosts',
  'fieldCosts',
  'defaultListSize',
];

/** A function option, or its default; @throws SluiceConfigError naming it. */
export function fnOption<F>(name: string, value: unknown, fallback: F): F {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') throw new SluiceConfigError(name, value, 'a function');
  return value as F;
}
