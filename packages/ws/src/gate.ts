import type { RequestView } from '@sluice/core';
import type { ProtocolVerdict } from '@sluice/core/protocol';
import type { Keyed } from './options.js';

/** What happens to a message over the limit. */
export type OnLimit = 'close' | 'pause' | 'drop';

/** What a gate does to its socket. */
export interface GateSocket<M> {
  /** Hands a message to the application's listeners. */
  deliver(message: M): void;
  /** Closes the connection with a status code (1008: policy violation) and a reason. */
  close(code: number, reason: string): void;
  /** Stops reading from the connection (TCP backpressure). Required for `'pause'`. */
  pause?(): void;
  /** Reads again. */
  resume?(): void;
}

/** Called for each message over the limit (after the socket was closed or paused). */
export type OnLimited<M> = (verdict: ProtocolVerdict, message: M) => void;

/** The close reason sent with 1008. */
export const CLOSE_REASON = 'rate limit exceeded';

/**
 * Decides each message of one connection in arrival order: a message is handed to the
 * application only once admitted. Over the limit: `'close'` closes with 1008 and nothing
 * after reaches the application; `'drop'` drops it; `'pause'` stops reading (the peer's TCP
 * window fills, so a flooding client slows down), waits the retry time and tries the same
 * message again, then reads again once the queue is empty: nothing is dropped.
 */
export class MessageGate<Req, M> {
  readonly #keyed: Keyed<Req>;
  readonly #socket: GateSocket<M>;
  readonly #mode: OnLimit;
  readonly #onLimited: OnLimited<M> | undefined;
  readonly #view: RequestView;
  readonly #key: string | undefined;
  /** Messages waiting for a decision (after a pending one or while paused), in order. */
  readonly #queue: M[] = [];
  #busy = false;
  #closed = false;
  #paused = false;

  constructor(
    keyed: Keyed<Req>,
    req: Req,
    socket: GateSocket<M>,
    mode: OnLimit,
    onLimited?: OnLimited<M>,
  ) {
    this.#keyed = keyed;
    this.#socket = socket;
    this.#mode = mode;
    this.#onLimited = onLimited;
    this.#view = keyed.viewOf(req, 'ws');
    this.#key = keyed.keyOf(req);
  }

  /** Messages waiting (queued behind a pending decision or a pause). */
  get queued(): number {
    return this.#queue.length;
  }

  /** A message arrived. */
  push(message: M): void {
    if (this.#closed) return;
    if (this.#busy) {
      this.#queue.push(message);
      return;
    }
    this.#decide(message);
  }

  #decide(message: M): void {
    let verdict: ProtocolVerdict | Promise<ProtocolVerdict>;
    try {
      verdict = this.#keyed.limiter.check(this.#view, { key: this.#key });
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (verdict instanceof Promise) {
      this.#busy = true;
      verdict.then(
        (v) => {
          this.#busy = false;
          this.#apply(v, message);
          this.#drain();
        },
        (error) => this.#fail(error),
      );
      return;
    }
    this.#apply(verdict, message);
  }

  #apply(verdict: ProtocolVerdict, message: M): void {
    if (this.#closed) return;
    if (verdict.allowed) {
      this.#socket.deliver(message);
      return;
    }
    if (this.#mode === 'close') {
      this.#closed = true;
      this.#queue.length = 0;
      this.#socket.close(1008, CLOSE_REASON);
    } else if (this.#mode === 'pause') {
      this.#queue.unshift(message);
      this.#busy = true;
      if (!this.#paused) {
        this.#paused = true;
        this.#socket.pause?.();
      }
      const wait = verdict.retryAfterMs < 0 ? verdict.decision.resetAfterMs : verdict.retryAfterMs;
      setTimeout(
        () => {
          this.#busy = false;
          this.#drain();
        },
        Math.max(1, Math.ceil(wait)),
      );
    }
    this.#onLimited?.(verdict, message);
  }

  /** Decides queued messages until one is pending or paused; reads again when none is left. */
  #drain(): void {
    while (!this.#busy && !this.#closed && this.#queue.length > 0)
      this.#decide(this.#queue.shift()!);
    if (!this.#busy && this.#paused && this.#queue.length === 0 && !this.#closed) {
      this.#paused = false;
      this.#socket.resume?.();
    }
  }

  /** A failed decision (a named limiter that threw): close, never an unlimited socket. */
  #fail(error: unknown): void {
    this.#busy = false;
    this.#closed = true;
    this.#queue.length = 0;
    this.#socket.close(1011, 'rate limiter error');
    this.#keyed.logger.warn(
      'sluice: a WebSocket message could not be decided; the connection was closed (1011)',
      error,
    );
  }
}
