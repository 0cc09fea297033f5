import { type LimitInput, SluiceConfigError } from '@sluice/core';
import type { ProtocolVerdict } from '@sluice/core/protocol';
import { type Keyed, keyed, type WsLimitOptions } from './options.js';

/** A socket.io server socket, as far as sluice needs it (socket.io 4). */
export interface IoSocketLike {
  /** The handshake: the client `address` (the default IP) and its `headers`. */
  handshake: {
    /** The client's IP. */
    address?: string;
    /** The handshake's HTTP headers. */
    headers?: Record<string, string | string[] | undefined>;
  };
  /** socket.io's `socket.data`: the default user is `socket.data.user.id`. */
  data?: unknown;
  /** The Node request of the handshake: else `request.user.id` (e.g. passport). */
  request?: object;
  /** socket.io's per-socket middleware (where events are limited). */
  use(fn: (event: unknown[], next: (err?: Error) => void) => void): unknown;
  /** Disconnects (`onLimit: 'disconnect'`). */
  disconnect(close?: boolean): unknown;
}

/** The error a refused connection gets: socket.io sends `message` and `data` to the client's `connect_error`. */
export interface RateLimitedIoError extends Error {
  /** What the client's `connect_error` receives: `retryAfter` in seconds. */
  data: {
    /**
     * Seconds until a connection would be admitted (at least 1); absent when waiting will
     * not admit it (an operator's deny, a cost above the limit): never negative.
     */
    retryAfter?: number;
  };
}

type WithUser = { user?: { id?: unknown } };

const readers = {
  user: (s: IoSocketLike) =>
    (s.data as WithUser | undefined)?.user?.id ?? (s.request as WithUser | undefined)?.user?.id,
  ip: (s: IoSocketLike) => s.handshake?.address,
  headers: (s: IoSocketLike) => s.handshake?.headers ?? {},
};

/**
 * socket.io middleware limiting new connections per user or IP (or `key`): `io.use(…)`.
 * A refused connection gets the client's `connect_error` with message
 * `'rate limit exceeded'` and `data.retryAfter` in **seconds**.
 *
 * @throws {@link SluiceConfigError} for a bad or unknown option.
 * @example
 * ```ts
 * io.use(limitIoConnections('20/min', { store: redisStore }));
 * ```
 */
export function limitIoConnections(
  limit: LimitInput,
  options: WsLimitOptions<IoSocketLike> = {},
): (socket: IoSocketLike, next: (err?: Error) => void) => void {
  const k = keyed<IoSocketLike>(limit, options, {
    channel: 'io-connect',
    where: 'limitIoConnections()',
    extra: [],
    readers,
  });
  return (socket, next) => {
    Promise.resolve()
      .then(() => k.limiter.check(k.viewOf(socket, 'connect'), { key: k.keyOf(socket) }))
      .then(
        (v) => (v.allowed ? next() : next(limitedError(retryAfterOf(v)))),
        (error) => next(error instanceof Error ? error : new Error('sluice: rate limiter error')),
      );
  };
}

/** Options of {@link limitIoEvents}. */
export interface LimitIoEventsOptions extends WsLimitOptions<IoSocketLike> {
  /** Over the limit: `'drop'` the event (default) or `'disconnect'` the socket. @default 'drop' */
  onLimit?: 'drop' | 'disconnect';
}

/**
 * socket.io middleware limiting named events per user or IP (or `key`), across all of a
 * user's sockets (and processes, on a shared store): `io.use(limitIoEvents({ 'chat:message':
 * '10/s', '*': '100/s' }))`. `'*'` counts every event. An event over a limit never reaches
 * your handlers; when it carries an acknowledgement callback, the callback gets
 * `{ error: 'rate limit exceeded', retryAfter }` (seconds; no `retryAfter` when waiting
 * will not admit it).
 *
 * @throws {@link SluiceConfigError} for a bad or unknown option or limit.
 */
export function limitIoEvents(
  limits: Readonly<Record<string, LimitInput>>,
  options: LimitIoEventsOptions = {},
): (socket: IoSocketLike, next: (err?: Error) => void) => void {
  if (limits === null || typeof limits !== 'object' || Object.keys(limits).length === 0) {
    throw new SluiceConfigError(
      'limits',
      limits,
      "an object { eventName: limit } (e.g. { '*': '100/s' })",
    );
  }
  const { onLimit = 'drop' } = options;
  if (onLimit !== 'drop' && onLimit !== 'disconnect') {
    throw new SluiceConfigError('onLimit', onLimit, "'drop' or 'disconnect'");
  }
  const byEvent = new Map<string, Keyed<IoSocketLike>>();
  for (const [event, limit] of Object.entries(limits)) {
    byEvent.set(
      event,
      keyed(limit, options, {
        channel: `io:${event}`,
        where: 'limitIoEvents()',
        extra: ['onLimit'],
        readers,
      }),
    );
  }
  const all = byEvent.get('*');
  return (socket, next) => {
    socket.use((packet, go) => {
      const event = String(packet[0]);
      const applied = [byEvent.get(event), all].filter(
        (x): x is Keyed<IoSocketLike> => x !== undefined,
      );
      if (applied.length === 0) return go();
      decideAll(applied, socket).then(
        (denied) => {
          if (denied === undefined) return go();
          const ack = packet[packet.length - 1];
          if (typeof ack === 'function') ack(limitedAck(denied));
          if (onLimit === 'disconnect') socket.disconnect(true);
        },
        () => socket.disconnect(true), // a limiter that fails never lets events through
      );
    });
    next();
  };
}

/** Decides the event under each limiter in turn; undefined when all admit, else the denial. */
async function decideAll(
  applied: Keyed<IoSocketLike>[],
  socket: IoSocketLike,
): Promise<ProtocolVerdict | undefined> {
  for (const k of applied) {
    const v = await k.limiter.check(k.viewOf(socket, 'event'), { key: k.keyOf(socket) });
    if (!v.allowed) return v;
  }
  return undefined;
}

/** `retryAfter` in seconds, or undefined when waiting will not admit it (never -1). */
function retryAfterOf(v: ProtocolVerdict): number | undefined {
  return v.retryAfterSeconds < 0 ? undefined : v.retryAfterSeconds;
}

function limitedAck(v: ProtocolVerdict): { error: string; retryAfter?: number } {
  const retryAfter = retryAfterOf(v);
  return retryAfter === undefined
    ? { error: 'rate limit exceeded' }
    : { error: 'rate limit exceeded', retryAfter };
}

function limitedError(retryAfter: number | undefined): RateLimitedIoError {
  const error = new Error('rate limit exceeded') as RateLimitedIoError;
  error.data = retryAfter === undefined ? {} : { retryAfter };
  return error;
}
