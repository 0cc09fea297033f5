import { type LimitInput, MemoryStore, SluiceConfigError } from '@sluice/core';
import {
  PROTOCOL_STORE_OPTIONS,
  ProtocolLimiter,
  type ProtocolStoreOptions,
  protocolStoreOptions,
  protocolView,
} from '@sluice/core/protocol';
import { checkOptionNames } from '@sluice/core/store';
import { TRPCError } from '@trpc/server';
import { RateLimitedError } from './errors.js';

/** What the key and subject functions are given: the procedure call's options. */
// biome-ignore lint/suspicious/noExplicitAny: the app's tRPC context, any shape by default
export interface TrpcCall<Ctx = any> {
  /** The procedure's context (`createContext`'s result, with middleware additions). */
  ctx: Ctx;
  /** The procedure's path, e.g. `'user.byId'`. */
  path: string;
  /** `'query'`, `'mutation'` or `'subscription'`. */
  type: string;
}

/** Options of {@link sluiceTrpc}. */
// biome-ignore lint/suspicious/noExplicitAny: the app's tRPC context, any shape by default
export interface SluiceTrpcOptions<Ctx = any> extends ProtocolStoreOptions {
  /**
   * The subject replacing user / IP; keys are then `<prefix>:<limit name>:<key>` (`sl@fw:…` on a fixed window, as on HTTP) (one bucket
   * per key across procedures). May return `undefined` to fall back to user / IP.
   * @default the user (`user`), else the IP (`ip`), IPv6 by /64
   */
  key?: (call: TrpcCall<Ctx>) => string | undefined | PromiseLike<string | undefined>;
  /** The user id. @default `ctx.user?.id` */
  user?: (call: TrpcCall<Ctx>) => string | number | undefined;
  /**
   * The client IP. @default `ctx.req.socket.remoteAddress` (the standalone / Node adapters
   * when `createContext` returns `{ req }`), else `ctx.ip`
   */
  ip?: (call: TrpcCall<Ctx>) => string | undefined;
  /**
   * Key each procedure apart (`<prefix>:<limit name>:<path>:…`): a budget per procedure and
   * subject. Off: one budget per subject across every procedure using this middleware.
   * @default false
   */
  perProcedure?: boolean;
}

const OPTIONS = ['key', 'user', 'ip', 'perProcedure', ...PROTOCOL_STORE_OPTIONS];

type AnyCtx = {
  user?: { id?: unknown };
  req?: { socket?: { remoteAddress?: string }; headers?: unknown };
  ip?: string;
};

function fn<F>(name: string, value: unknown, fallback: F): F {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') throw new SluiceConfigError(name, value, 'a function');
  return value as F;
}

/**
 * A tRPC procedure middleware: each call takes one unit (`Limit.cost(n)`: n) of `limit`
 * from its user or IP (or `key`) before the procedure runs; over the limit it throws
 * `TRPCError({ code: 'TOO_MANY_REQUESTS' })` whose `cause` is a {@link RateLimitedError}
 * carrying `retryAfter` (seconds). Put `retryAfter` into the error shape's `data` with
 * {@link sluiceErrorFormatter}, and `Retry-After` on HTTP with {@link sluiceResponseMeta}.
 * Works on every tRPC adapter (it runs inside the procedure, not the HTTP layer).
 *
 * @param limit - a throttle string (`'60/min'`, `'throttle:api'` for a named limiter), a
 *   `Limit`, or an array of them (all or nothing).
 * @throws {@link SluiceConfigError} at creation for a bad or unknown option or limit.
 * @example
 * ```ts
 * const limited = t.procedure.use(sluiceTrpc('60/min', { key: ({ ctx }) => ctx.session?.userId }));
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: the app's tRPC context, any shape by default
export function sluiceTrpc<Ctx = any>(limit: LimitInput, options: SluiceTrpcOptions<Ctx> = {}) {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an object { key?, store?, … }');
  }
  checkOptionNames(options, OPTIONS, 'sluiceTrpc()');
  const key = fn('key', options.key, (_: TrpcCall<Ctx>) => undefined as string | undefined);
  const user = fn(
    'user',
    options.user,
    (c: TrpcCall<Ctx>) => (c.ctx as AnyCtx)?.user?.id as string | number | undefined,
  );
  const ip = fn(
    'ip',
    options.ip,
    (c: TrpcCall<Ctx>) => (c.ctx as AnyCtx)?.req?.socket?.remoteAddress ?? (c.ctx as AnyCtx)?.ip,
  );
  const perProcedure = options.perProcedure ?? false;
  if (typeof perProcedure !== 'boolean')
    throw new SluiceConfigError('perProcedure', perProcedure, 'a boolean');
  const limiter = new ProtocolLimiter({
    store: new MemoryStore(),
    ...protocolStoreOptions(options),
    limit,
    channel: 'trpc',
  });
  return async function sluiceTrpcMiddleware<R>(opts: {
    ctx: Ctx;
    path: string;
    type: string;
    next: () => Promise<R>;
  }): Promise<R> {
    const call: TrpcCall<Ctx> = { ctx: opts.ctx, path: opts.path, type: opts.type };
    const view = protocolView({
      method: opts.type,
      route: opts.path,
      ip: ip(call),
      user: user(call),
      raw: call,
    });
    const k = await key(call);
    if (k === undefined && view.userId === undefined && view.ip === '') {
      throw new TRPCError({
        code: 'INTERNAL_SERVER_ERROR',
        message:
          'sluice: no subject to limit this call by: give the `key` option, or a context with `user.id` or `req`',
      });
    }
    const verdict = await limiter.check(view, {
      key: k,
      route: perProcedure ? opts.path : undefined,
    });
    if (!verdict.allowed) {
      const cause = new RateLimitedError(verdict);
      throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: cause.message, cause });
    }
    return opts.next();
  };
}
