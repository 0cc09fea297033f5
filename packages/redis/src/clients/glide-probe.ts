import { unrefTimeout } from '../runtime/timers.js';
import { DOWN_ERRORS } from './script-client.js';

/** What the probe needs of a GLIDE client (see glide.ts). */
interface Pingable {
  customCommand(args: string[], options?: { route?: unknown }): Promise<unknown>;
  readonly isClosed?: boolean;
}

/** How long after a failed `PING` a node is pinged again, ms. */
export const PROBE_EVERY_MS = 100;

/**
 * The connection state GLIDE does not tell, told by its answers: a node (`host:port` on a
 * Cluster, `''` standalone) whose call failed or timed out is `PING`ed, one at a time, every
 * {@link PROBE_EVERY_MS} after a failed one, and until a `PING` answers, calls to it fail at
 * once with {@link DOWN_ERRORS}`.reconnecting` rather than wait in GLIDE (which holds a call
 * while it reconnects, up to its `requestTimeout`). A `PING` waits there too: it answers as
 * soon as GLIDE has its connection again, so the node is back with its first answer.
 *
 * `isMaster` (a Cluster): whether a node still serves slots; a master replaced by its
 * promoted replica is forgotten (its slots' calls go to the new master), not pinged forever.
 * `failed`: told of each failed `PING` and each call refused (a Cluster reloads its slot
 * table: calls failed at once no longer tell it that a node fails).
 */
export class GlideProbe {
  readonly #client: Pingable;
  readonly #cluster: boolean;
  readonly #isMaster: (node: string) => boolean;
  readonly #failed: (() => void) | undefined;
  /** The nodes that did not answer, until a `PING` does. */
  readonly #down = new Set<string>();

  constructor(
    client: Pingable,
    cluster: boolean,
    isMaster: (node: string) => boolean,
    failed?: () => void,
  ) {
    this.#client = client;
    this.#cluster = cluster;
    this.#isMaster = isMaster;
    this.#failed = failed;
  }

  /**
   * The error of a call to `node` now: closed client, or a node not answering (undefined
   * node on a Cluster: unknown, only a closed client fails it).
   */
  down(node: string | undefined): Error | undefined {
    if (this.#client.isClosed === true) return DOWN_ERRORS.close;
    if (this.#down.size === 0) return undefined;
    if (!this.#cluster) return this.#down.has('') ? DOWN_ERRORS.reconnecting : undefined;
    if (node === undefined || !this.#down.has(node)) return undefined;
    // A failover: the slots' masters, reloaded (at most every 250 ms) while calls to the
    // node are refused (its PING may wait in GLIDE), no longer list it.
    if (!this.#isMaster(node)) {
      this.#down.delete(node);
      return undefined;
    }
    this.#failed?.();
    return DOWN_ERRORS.reconnecting;
  }

  /** A call to `node` failed or timed out: calls to it fail at once until a `PING` answers. */
  lost(node: string | undefined): void {
    const n = this.#cluster ? node : '';
    if (n === undefined || (this.#cluster && n === '') || this.#down.has(n)) return;
    this.#down.add(n);
    this.#ping(n);
  }

  #ping(node: string): void {
    const c = this.#client;
    if (c.isClosed === true || (this.#cluster && !this.#isMaster(node))) {
      this.#down.delete(node);
      return;
    }
    let request: Promise<unknown>;
    try {
      request = c.customCommand(
        ['PING'],
        this.#cluster ? { route: { type: 'routeByAddress', host: node } } : undefined,
      );
    } catch {
      request = Promise.reject();
    }
    request.then(
      () => void this.#down.delete(node),
      () => {
        this.#failed?.();
        unrefTimeout(() => this.#ping(node), PROBE_EVERY_MS);
      },
    );
  }
}
