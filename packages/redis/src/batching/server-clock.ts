/**
 * How fast the offset between this process's clock and a Redis server's `TIME` is assumed
 * to change at most: 1000 ppm (NTP slews at most 500 ppm). An estimate this old loses
 * 1 ms per second, so it stays a lower bound while the two clocks drift apart.
 */
const MAX_DRIFT = 0.001;

/** The lower bound of one server's clock offset, and when it was taken. */
interface Offset {
  /** Server ms minus app ms: at most the true offset. */
  ms: number;
  /** `performance.now()` when it was taken. */
  at: number;
}

/**
 * Turns a call's deadline on this process's clock into one on a Redis server's `TIME`, so
 * the script can refuse to run a call whose caller has already given up on it (a decision
 * that arrives after its timeout charges nothing), whatever the skew between the
 * two clocks.
 *
 * Every reply carries the server's `TIME` (ms), read before the reply was sent and so
 * before it was received: `TIME - (the app's time at receipt)` is a **lower bound** of the
 * offset `server clock - app clock`; the greatest bound seen so far (aged by
 * {@link MAX_DRIFT}) is the estimate. Since it never exceeds the true offset, the deadline
 * sent is never later than the caller's own: a script that runs after the caller timed out
 * always sees it expired. (It may see it expired up to one round trip early, which only
 * turns a call that was about to time out into a timeout.) Kept per server (a Cluster's
 * nodes have their own clocks), by the name the caller gives it.
 */
export class ServerClocks {
  readonly #offsets = new Map<string, Offset>();

  /**
   * Records a reply of `server` carrying its `TIME` in ms (`serverMs`), received now.
   * Ignores a `serverMs` that is not a number.
   */
  sample(server: string, serverMs: unknown): void {
    if (typeof serverMs !== 'number') return;
    const at = performance.now();
    const ms = serverMs - (performance.timeOrigin + at);
    const best = this.#offsets.get(server);
    if (best === undefined) {
      this.#offsets.set(server, { ms, at });
    } else if (ms >= best.ms - (at - best.at) * MAX_DRIFT) {
      best.ms = ms;
      best.at = at;
    }
  }

  /**
   * The deadline to send to `server` (whole ms on its `TIME`) for a call whose caller
   * gives up at `deadline` (`performance.now()` ms), or `''` (no deadline) while no reply
   * of that server has been seen.
   */
  deadlineOn(server: string, deadline: number): number | '' {
    const best = this.#offsets.get(server);
    if (best === undefined) return '';
    const offset = best.ms - (performance.now() - best.at) * MAX_DRIFT;
    return Math.floor(performance.timeOrigin + deadline + offset);
  }
}
