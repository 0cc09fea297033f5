import { type LimitInput, SluiceConfigError } from '@sluice/core';
import { MessageGate, type OnLimited } from './gate.js';
import { keyed, type WsLimitOptions } from './options.js';

/** Bun's `ServerWebSocket`, as far as sluice needs it. */
export interface BunSocketLike {
  remoteAddress?: string;
  data?: { user?: { id?: unknown } } | unknown;
  close(code?: number, reason?: string): void;
}

/** Bun's `websocket` handler object (`Bun.serve({ websocket })`), as far as sluice needs it. */
export interface BunWebSocketHandlerLike<S extends BunSocketLike = BunSocketLike> {
  /** Called with each message sluice admits. */
  message(ws: S, message: string | Uint8Array): unknown;
  /** Bun's close hook, passed through. */
  close?(ws: S, code: number, reason: string): unknown;
  [hook: string]: unknown;
}

/** Options of {@link limitBunMessages}. */
export interface LimitBunMessagesOptions extends WsLimitOptions<BunSocketLike> {
  /** Over the limit: `'close'` with 1008 (default) or `'drop'`. Bun cannot pause reading. */
  onLimit?: 'close' | 'drop';
  /** Called for each message over the limit. */
  onLimited?: OnLimited<string | Uint8Array>;
}

/**
 * Wraps Bun's `websocket` handler so that `message` only sees messages within the limit, per
 * user (`ws.data.user.id`) or IP (`ws.remoteAddress`), or `key`. Returns a new handler.
 *
 * @throws {@link SluiceConfigError} for a bad or unknown option.
 * @example
 * ```ts
 * Bun.serve({ fetch, websocket: limitBunMessages({ message(ws, m) { ws.send(m); } }, '100/s') });
 * ```
 */
export function limitBunMessages<S extends BunSocketLike, H extends BunWebSocketHandlerLike<S>>(
  handler: H,
  limit: LimitInput,
  options: LimitBunMessagesOptions = {},
): H {
  if (handler === null || typeof handler !== 'object' || typeof handler.message !== 'function') {
    throw new SluiceConfigError('handler', handler, 'a Bun websocket handler { message(ws, m) }');
  }
  const { onLimit = 'close', onLimited } = options;
  if (onLimit !== 'close' && onLimit !== 'drop') {
    throw new SluiceConfigError(
      'onLimit',
      onLimit,
      "'close' or 'drop' (Bun sockets cannot pause reading)",
    );
  }
  const k = keyed<BunSocketLike>(limit, options, {
    channel: 'ws',
    where: 'limitBunMessages()',
    extra: ['onLimit', 'onLimited'],
    readers: {
      user: (ws) => (ws.data as { user?: { id?: unknown } } | undefined)?.user?.id,
      ip: (ws) => ws.remoteAddress,
      headers: () => ({}),
    },
  });
  const gates = new WeakMap<S, MessageGate<BunSocketLike, string | Uint8Array>>();
  const message = handler.message;
  return {
    ...handler,
    message(ws: S, data: string | Uint8Array) {
      let gate = gates.get(ws);
      if (gate === undefined) {
        gate = new MessageGate(
          k,
          ws,
          {
            deliver: (m) => message.call(handler, ws, m),
            close: (code, reason) => ws.close(code, reason),
          },
          onLimit,
          onLimited,
        );
        gates.set(ws, gate);
      }
      gate.push(data);
    },
  };
}
