/**
 * Virtual time for the client and the server at once: `clock` for both, `sleep` for the
 * client. Time stands still while a request is in flight or the code is busy, and jumps to
 * the next sleeper's wake-up when everything is idle, so a 100 s run takes what its
 * requests take in real time.
 */
export class VirtualTime {
  now: number;
  inFlight = 0;
  private progress = 0;
  private timers = new Set<{ at: number; wake: () => void }>();

  constructor(start: number) {
    this.now = start;
  }

  readonly clock = (): number => this.now;

  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      this.progress++;
      const timer = {
        at: this.now + Math.max(0, ms),
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers.delete(timer);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.add(timer);
    });

  /**
   * `fetch` (a server's in-process one, or the global one) counted in flight until its body
   * is read: answers come back buffered.
   */
  wrap(
    fetchFn: (input: string | URL | Request, init?: RequestInit) => Promise<Response>,
  ): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
    return (input, init) => this.fetch(fetchFn, input, init);
  }

  private async fetch(
    fetchFn: (input: string | URL | Request, init?: RequestInit) => Promise<Response>,
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> {
    this.inFlight++;
    this.progress++;
    try {
      const res = await fetchFn(input, init);
      const body = await res.arrayBuffer();
      return new Response(res.status === 204 ? null : body, {
        status: res.status,
        headers: res.headers,
      });
    } finally {
      this.inFlight--;
      this.progress++;
    }
  }

  /** Runs `work` to its end, moving time forward whenever nothing else can happen. */
  async run<T>(work: Promise<T>): Promise<T> {
    let done = false;
    work.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    let seen = -1;
    let quiet = 0;
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.inFlight > 0 || this.progress !== seen) {
        seen = this.progress;
        quiet = 0;
        continue;
      }
      if (++quiet < 3 || this.timers.size === 0) continue;
      let next = Number.POSITIVE_INFINITY;
      for (const t of this.timers) next = Math.min(next, t.at);
      this.now = Math.max(this.now, next);
      const due = [...this.timers].filter((t) => t.at <= this.now);
      for (const t of due) {
        this.timers.delete(t);
        t.wake();
      }
      quiet = 0;
    }
    return work;
  }
}
