import { type LimitInput, SluiceConfigError } from '@sluice/core';
import { MessageGate, type OnLimit, type OnLimited } from './gate.js';
import { keyed, type UpgradeRequest, type WsLimitOptions } from './options.js';

/** A `ws` WebSocket, as far as sluice needs it (ws 8: `pause()` / `resume()` since 8.6). */
export interface WsSocketLike {
  /** How ws delivers `'message'` (sluice gates it). */
  emit(event: string | symbol, ...args: unknown[]): boolean;
  /** Closes with a code (1008 over the limit). */
  close(code?: number, reason?: string): void;
  /** Stops reading the connection (ws 8.6+); `'pause'` needs it. */
  pause?(): void;
  /** Reads again. */
  resume?(): void;
  /** ws's underlying `net.Socket` (its address is the default subject without `request`). */
  _socket?: {
    /** The client's IP. */
    remoteAddress?: string;
  };
}

/** Options of {@link limitMessages}. */
export interface LimitMessagesOptions extends WsLimitOptions<UpgradeRequest> {
  /**
   * Over the limit: `'close'` (default) closes with 1008 (policy violation) and nothing after
   * reaches your listeners; `'pause'` stops reading the socket until the message conforms
   * (TCP backpressure slows the sender; nothing is dropped); `'drop'` drops the message.
   * @default 'close'
   */
  onLimit?: OnLimit;
  /** The upgrade request (ws's `'connection'` second argument): user and IP are read from it. */
  request?: UpgradeRequest;
  /** Called for each message over the limit, with the verdict (`retryAfterMs`…) and the message's arguments. */
  onLimited?: OnLimited<unknown[]>;
}

/**
 * Limits the messages a `ws` WebSocket hands to its `'message'` listeners: each message
 * takes one unit (`Limit.cost(n)`: n) from the socket's user or IP (or `key`), on the
 * shared store, before any listener sees it. Call it in `'connection'`, before adding your
 * own `'message'` listeners. Returns the socket.
 *
 * @throws {@link SluiceConfigError} for a bad or unknown option, or `onLimit: 'pause'` on a
 *   socket without `pause()` / `resume()` (ws < 8.6).
 * @example
 * ```ts
 * wss.on('connection', (ws, req) => {
 *   limitMessages(ws, Limit.perSecond(100), { request: req, onLimit: 'pause' });
 *   ws.on('message', (data) => handle(data));
 * });
 * ```
 */
export function limitMessages<S extends WsSocketLike>(
  socket: S,
  limit: LimitInput,
  options: LimitMessagesOptions = {},
): S {
  if (socket === null || typeof socket !== 'object' || typeof socket.emit !== 'function') {
    throw new SluiceConfigError('socket', socket, 'a ws WebSocket');
  }
  const { onLimit = 'close', onLimited, request } = options;
  if (onLimit !== 'close' && onLimit !== 'pause' && onLimit !== 'drop') {
    throw new SluiceConfigError('onLimit', onLimit, "'close', 'pause' or 'drop'");
  }
  if (
    onLimit === 'pause' &&
    (typeof socket.pause !== 'function' || typeof socket.resume !== 'function')
  ) {
    throw new SluiceConfigError(
      'onLimit',
      onLimit,
      "'close' or 'drop' on a socket without pause() (ws >= 8.6 has it)",
    );
  }
  if (onLimited !== undefined && typeof onLimited !== 'function') {
    throw new SluiceConfigError('onLimited', onLimited, 'a function');
  }
  const k = keyed<UpgradeRequest>(limit, options, {
    channel: 'ws',
    where: 'limitMessages()',
    extra: ['onLimit', 'request', 'onLimited'],
    readers: {
      user: (req) => req.user?.id,
      ip: (req) => req.socket?.remoteAddress,
      headers: (req) => req.headers ?? {},
    },
  });
  const emit = socket.emit;
  const gate = new MessageGate<UpgradeRequest, unknown[]>(
    k,
    request ?? { socket: socket._socket },
    {
      deliver: (args) => emit.call(socket, 'message', ...args),
      close: (code, reason) => socket.close(code, reason),
      pause: () => socket.pause?.(),
      resume: () => socket.resume?.(),
    },
    onLimit,
    onLimited,
  );
  // Every 'message' goes through the gate; other events pass as they are.
  socket.emit = function gatedEmit(this: S, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'message') return emit.call(this, event, ...args);
    gate.push(args);
    return true;
  };
  return socket;
}
