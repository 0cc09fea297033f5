import { unrefTimeout } from '../runtime/timers.js';
import { DOWN_ERRORS } from './script-client.js';

/** What the probe needs of a GLIDE client (see glide.ts). */
interface Pingable {
  customCommand(args: string[]): Promise<unknown>;
  readonly isClosed?: boolean;
}

/** How long after a failed `PING` the server is pinged again, ms. */
export const PROBE_EVERY_MS = 100;

/**
 * The connection state a `GlideClient` does not tell, told by its answers: after a call
 * failed or timed out the server is `PING`ed, one at a time, again {@link PROBE_EVERY_MS}
 * after a failed one, and until a `PING` answers, calls fail at once with
 * {@link DOWN_ERRORS}`.reconnecting` rather than wait in GLIDE (which holds a call while it
 * reconnects, up to its `requestTimeout`, and sends it after). A `PING` waits there too: it
 * answers as soon as GLIDE has its connection again, so the server is back with its first
 * answer. Standalone only: on a `GlideClusterClient` the limiter's per-node breakers do this
 * per master, and GLIDE follows a failover by itself.
 */
export class GlideProbe {
  readonly #client: Pingable;
  /** Whether the server did not answer, until a `PING` does. */
  #down = false;

  constructor(client: Pingable) {
    this.#client = client;
  }

  /** The error of a call now: a closed client, or a server not answering; else undefined. */
  down(): Error | undefined {
    if (this.#client.isClosed === true) return DOWN_ERRORS.close;
    return this.#down ? DOWN_ERRORS.reconnecting : undefined;
  }

  /** A call failed or timed out: calls fail at once until a `PING` answers. */
  lost(): void {
    if (this.#down) return;
    this.#down = true;
    this.#ping();
  }

  #ping(): void {
    const c = this.#client;
    if (c.isClosed === true) {
      this.#down = false;
      return;
    }
    let request: Promise<unknown>;
    try {
      request = c.customCommand(['PING']);
    } catch (error) {
      request = Promise.reject(error);
    }
    request.then(
      () => {
        this.#down = false;
      },
      () => void unrefTimeout(() => this.#ping(), PROBE_EVERY_MS),
    );
  }
}
