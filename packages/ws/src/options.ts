import {
  type LimitInput,
  MemoryStore,
  type RequestView,
  SluiceConfigError,
  type Store,
} from '@sluice/core';
import {
  PROTOCOL_STORE_OPTIONS,
  ProtocolLimiter,
  type ProtocolStoreOptions,
  protocolStoreOptions,
  protocolView,
} from '@sluice/core/protocol';
import { checkOptionNames } from '@sluice/core/store';

/** The upgrade request (Node's `IncomingMessage`), as far as keys need it. */
export interface UpgradeRequest {
  /** The request headers (named limiters see them). */
  headers?: Record<string, string | string[] | undefined>;
  /** The connection: its `remoteAddress` is the default IP. */
  socket?: {
    /** The client's IP. */
    remoteAddress?: string;
  };
  /** Set by your authentication (e.g. a session middleware run on the upgrade). */
  user?: {
    /** The user id the messages are keyed by. */
    id?: unknown;
  };
}

/** Options shared by every `@sluice/ws` limiter. `Req` is what the subject is read from. */
export interface WsLimitOptions<Req = UpgradeRequest> extends ProtocolStoreOptions {
  /**
   * The subject replacing user / IP: a string, or a function of the request (the upgrade
   * request; the socket.io socket). Keys are then `<prefix>:<limit name>:<key>` (`sl@fw:…` on a fixed window, as on HTTP).
   * @default the user (`user`), else the client IP, IPv6 grouped by /64
   */
  key?: string | ((req: Req) => string | undefined);
  /** The user id. @default `req.user?.id` */
  user?: (req: Req) => string | number | undefined;
  /** The client IP. @default the request's socket address */
  ip?: (req: Req) => string | undefined;
  /**
   * Where state lives. @default one MemoryStore shared by every `@sluice/ws` limiter of the
   * process (so a user's sockets share their budget); a `RedisStore` for a fleet.
   */
  store?: Store;
}

const COMMON_OPTIONS = ['key', 'user', 'ip', ...PROTOCOL_STORE_OPTIONS];

/** The process's default store for WebSocket limits. */
let defaultStore: MemoryStore | undefined;

/** A limit with its subject reader, built once from the options. */
export interface Keyed<Req> {
  limiter: ProtocolLimiter;
  /** Where a failed decision is reported (the `logger` option, default `console`). */
  logger: { warn(message: string, ...args: unknown[]): void };
  /** The key option's subject for `req`, if any. */
  keyOf(req: Req): string | undefined;
  /** The request view named limiters and the default subject read. */
  viewOf(req: Req, route: string): RequestView;
}

/** What a limiter of this package is: its key channel, its name for errors, its own options, its readers. */
export interface KeyedSpec<Req> {
  channel: string;
  where: string;
  extra: readonly string[];
  readers: Readers<Req>;
}

/** How the default subject and the named limiters' view are read from `Req`. */
export interface Readers<Req> {
  user: (req: Req) => unknown;
  ip: (req: Req) => string | undefined;
  headers: (req: Req) => RequestView['headers'];
}

/**
 * Checks `options` (only `COMMON_OPTIONS` and `extra` names) and builds the limiter.
 * @throws SluiceConfigError naming a bad or unknown option.
 */
export function keyed<Req>(
  limit: LimitInput,
  options: WsLimitOptions<Req> & object,
  spec: KeyedSpec<Req>,
): Keyed<Req> {
  const { channel, where, extra, readers: defaults } = spec;
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an object');
  }
  checkOptionNames(options, [...COMMON_OPTIONS, ...extra], where);
  const { key, user = defaults.user, ip = defaults.ip } = options;
  if (key !== undefined && typeof key !== 'string' && typeof key !== 'function') {
    throw new SluiceConfigError('key', key, 'a string or a function (req) => string');
  }
  for (const [name, fn] of [
    ['user', user],
    ['ip', ip],
  ] as const) {
    if (typeof fn !== 'function') throw new SluiceConfigError(name, fn, 'a function');
  }
  defaultStore ??= new MemoryStore();
  const limiter = new ProtocolLimiter({
    ...protocolStoreOptions(options),
    store: options.store ?? defaultStore,
    limit,
    channel,
  });
  return {
    limiter,
    logger: options.logger ?? console,
    keyOf: (req) => (typeof key === 'function' ? key(req) : key),
    viewOf: (req, route) =>
      protocolView({
        method: 'GET',
        route,
        ip: (ip as (r: Req) => string | undefined)(req),
        user: (user as (r: Req) => unknown)(req),
        headers: defaults.headers(req),
        raw: req,
      }),
  };
}
