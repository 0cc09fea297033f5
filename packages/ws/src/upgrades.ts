import type { LimitInput } from '@sluice/core';
import { SluiceConfigError } from '@sluice/core';
import type { ProtocolVerdict } from '@sluice/core/protocol';
import { keyed, type UpgradeRequest, type WsLimitOptions } from './options.js';

/** A connection limit at the HTTP upgrade (see {@link limitUpgrades}). */
export interface UpgradeLimiter {
  /** Decides one upgrade request: the verdict (`allowed`, `retryAfterSeconds`…). */
  check(request: UpgradeRequest): Promise<ProtocolVerdict>;
  /**
   * ws's `verifyClient` (async form): refuses an upgrade over the limit with 429 and
   * `Retry-After`. `new WebSocketServer({ server, verifyClient: upgrades.verifyClient })`.
   */
  verifyClient(
    info: { req: UpgradeRequest },
    done: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void,
  ): void;
}

/**
 * Limits new WebSocket connections per user or IP (or `key`) at the upgrade, before a
 * socket exists: as HTTP requests to the upgrade route are limited, on the same stores.
 *
 * @throws {@link SluiceConfigError} for a bad or unknown option.
 * @example
 * ```ts
 * const upgrades = limitUpgrades('10/min');
 * const wss = new WebSocketServer({ server, verifyClient: upgrades.verifyClient });
 * ```
 */
export function limitUpgrades(
  limit: LimitInput,
  options: WsLimitOptions<UpgradeRequest> = {},
): UpgradeLimiter {
  const k = keyed<UpgradeRequest>(limit, options, {
    channel: 'ws-upgrade',
    where: 'limitUpgrades()',
    extra: [],
    readers: {
      user: (req) => req.user?.id,
      ip: (req) => req.socket?.remoteAddress,
      headers: (req) => req.headers ?? {},
    },
  });
  const check = async (request: UpgradeRequest) => {
    if (request === null || typeof request !== 'object') {
      throw new SluiceConfigError('request', request, 'the upgrade request');
    }
    return k.limiter.check(k.viewOf(request, 'upgrade'), { key: k.keyOf(request) });
  };
  return {
    check,
    verifyClient(info, done) {
      check(info.req).then(
        (v) => {
          if (v.allowed) return done(true);
          // No Retry-After when waiting will not help (a cost above the limit, a deny).
          const retryAfter = v.retryAfterHeader;
          done(false, 429, 'Too Many Requests', retryAfter ? { 'Retry-After': retryAfter } : {});
        },
        () => done(false, 500, 'Internal Server Error'),
      );
    },
  };
}
