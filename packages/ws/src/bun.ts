import { type LimitInput, SluiceConfigError } from '@sluice/core';
import { MessageGate, type OnLimit, type OnLimited } from './gate.js';
import { keyed, type WsLimitOptions } from './options.js';

/** Bun's `ServerWebSocket`, as far as sluice needs it. */
export interface BunSocketLike {
  remoteAddress?: string;
  data?: { user?: { id?: unknown } } | unknown;
  close(code?: number, reason?: string): void;
  /** Stops reading the connection (Bun 1.4's `ServerWebSocket.pause()`); `'pause'` needs it. */
  pause?(): void;
  /** Reads again. */
  resume?(): void;
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
  /**
   * Over the limit: `'close'` closes with 1008 (default); `'pause'` stops reading the socket
   * (`ws.pause()`: TCP backpressure slows the sender, nothing is dropped; the messages Bun had
   * already read wait in order) until the message conforms; `'drop'` drops it. `'pause'`
   * needs a Bun whose `ServerWebSocket` has `pause()` / `resume()` (1.4.5 is tested): on an
   * older one the socket is closed with 1011 at its first message, never left unlimited.
   * @default 'close'
   */
  onLimit?: OnLimit;
  /** Called for each message over the limit. */
  onLimited?: OnLimited<string | Uint8Array>;
}

/**
 * Wraps Bun's `websocket` handler so that `message` only sees messages within the limit, per
 * user (`ws.data.user.id`) or IP (`ws.remoteAddress`), or `key`. Returns a new handler (the
 * other hooks passed through). Over the limit: close with 1008, pause reading, or drop, as
 * `limitMessages` on `ws`.
 *
 * @throws {@link SluiceConfigError} for a bad or unknown option.
 * @example
 * ```ts
 * Bun.serve({
 *   fetch: (req, server) => (server.upgrade(req, { data: { user } }) ? undefined : new Response('no')),
 *   websocket: limitBunMessages({ message(ws, m) { ws.send(m); } }, '100/s', { onLimit: 'pause' }),
 * });
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
  if (onLimit !== 'close' && onLimit !== 'pause' && onLimit !== 'drop') {
    throw new SluiceConfigError('onLimit', onLimit, "'close', 'pause' or 'drop'");
  }
  if (onLimited !== undefined && typeof onLimited !== 'function') {
    throw new SluiceConfigError('onLimited', onLimited, 'a function');
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
        if (
          onLimit === 'pause' &&
          (typeof ws.pause !== 'function' || typeof ws.resume !== 'function')
        ) {
          // An older Bun: no way to pause reading; closed, never left unlimited.
          k.logger.warn(
            "sluice: onLimit 'pause' needs Bun's ServerWebSocket.pause() (Bun 1.4+); the connection was closed (1011)",
          );
          ws.close(1011, 'rate limiter cannot pause');
          return;
        }
        gate = new MessageGate(
          k,
          ws,
          {
            deliver: (m) => message.call(handler, ws, m),
            close: (code, reason) => ws.close(code, reason),
            pause: () => ws.pause?.(),
            resume: () => ws.resume?.(),
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
