import { userIdOf } from '../http/request/keys.js';
import type { LimitAlgorithmFactory } from '../limits/limit.js';
import type { RequestView } from '../limits/request-view.js';
import type { ThrottleRegistry } from '../limits/throttle-registry.js';
import type { StoreErrorPolicy, StoreFailureLogger } from '../store-failure/store-failure.js';
import type { Store } from '../stores/store.js';

/**
 * The options every protocol helper (`@sluice/graphql`, `@sluice/ws`, `@sluice/trpc`) passes
 * through to its `ProtocolLimiter` unchanged: where state lives and how it is decided.
 */
export interface ProtocolStoreOptions {
  /** Where state lives (a `RedisStore` for a fleet). Default: a new `MemoryStore`. */
  store?: Store;
  /** Where `'throttle:<name>'` is looked up. Default: the process-wide `throttles`. */
  throttles?: ThrottleRegistry;
  /** The algorithm each `Limit` runs on. Default: GCRA with burst = the quota. */
  algorithm?: LimitAlgorithmFactory;
  /** Key prefix. @default 'sl' (as the HTTP middleware) */
  prefix?: string;
  /** ms since the Unix epoch. @default Date.now */
  clock?: () => number;
  /** The store failure policy (see `RateLimiter`). @default 'insurance' */
  onStoreError?: StoreErrorPolicy;
  /** Where store-failure notices go. @default console */
  logger?: StoreFailureLogger;
  /**
   * IPv6 addresses are keyed by this network prefix length (1-128), or by a synchronous
   * function of the request view returning one, asked once per IP-keyed unit of work (an
   * answer out of 1..128 rejects the check with a `SluiceConfigError` naming `ipv6Subnet`).
   * Operator `{ ip }` entries apply to the work whose group holds their address.
   * @default 64
   * @throws SluiceConfigError naming `ipv6Subnet` at construction for a value that is
   *   neither such a number nor a function.
   * @example ipv6Subnet: (req) => (req.ip.startsWith('2001:db8:') ? 56 : 64)
   */
  ipv6Subnet?: number | ((req: RequestView) => number);
}

/** The names of {@link ProtocolStoreOptions}, for a helper's option check. */
export const PROTOCOL_STORE_OPTIONS: readonly string[] = Object.freeze([
  'store',
  'throttles',
  'algorithm',
  'prefix',
  'clock',
  'onStoreError',
  'logger',
  'ipv6Subnet',
]);

/**
 * The {@link ProtocolStoreOptions} of a helper's options object (the rest left out), to pass
 * to a `ProtocolLimiter`: `new ProtocolLimiter({ ...protocolStoreOptions(options), limit, channel })`.
 */
export function protocolStoreOptions(options: ProtocolStoreOptions): ProtocolStoreOptions {
  const out: Record<string, unknown> = {};
  for (const name of PROTOCOL_STORE_OPTIONS) {
    const value = (options as Record<string, unknown>)[name];
    if (value !== undefined) out[name] = value;
  }
  return out as ProtocolStoreOptions;
}

/** What a protocol knows of one unit of work's sender, for {@link protocolView}. */
export interface ProtocolRequest {
  /** What the work is (`'POST'` for GraphQL, `'GET'` for a WebSocket, a tRPC call's type). */
  method: string;
  /** Where it goes (`'graphql'`, a tRPC procedure's path…). */
  route: string;
  /** The client IP, if known. */
  ip: string | undefined;
  /** The user id as the application gave it: kept only when a non-empty string or a finite number. */
  user: unknown;
  /** The request headers, lower-case names. */
  headers?: RequestView['headers'];
  /** The protocol's own object (named limiters see it as `raw`). */
  raw: unknown;
}

/**
 * The {@link RequestView} a protocol helper gives `ProtocolLimiter.check` (and named
 * limiters): the user id kept only when a non-empty string or a finite number, as HTTP does
 * (anything else is no user: the IP keys the work), the IP `''` when unknown.
 */
export function protocolView(req: ProtocolRequest): RequestView {
  return {
    method: req.method,
    route: req.route,
    ip: req.ip ?? '',
    userId: userIdOf(req.user),
    headers: req.headers ?? {},
    raw: req.raw,
  };
}
