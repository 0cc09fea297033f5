/**
 * Holds slow handlers of the HTTP behaviour table in flight until the test opens it: each
 * `wait()` counts one request entered and resolves when `open()` lets it through.
 *
 * @example
 * const gate = new Gate();
 * // route { gate }: its handler awaits gate.wait() before answering
 * await gate.entered(2); gate.open(1); // two requests inside, let one finish
 */
export class Gate {
  #waiting: (() => void)[] = [];
  #count = 0;
  #watchers: { n: number; resolve: () => void }[] = [];

  /** How many requests have entered so far. */
  get count(): number {
    return this.#count;
  }

  /** Called by a handler: resolves when the test opens the gate for it. */
  wait(): Promise<void> {
    this.#count++;
    this.#watchers = this.#watchers.filter((w) => {
      if (this.#count < w.n) return true;
      w.resolve();
      return false;
    });
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Lets `n` waiting requests through (default: every one), oldest first. */
  open(n = Number.POSITIVE_INFINITY): void {
    const released = this.#waiting.splice(0, n);
    for (const resolve of released) resolve();
  }

  /** Resolves once `n` requests in total have entered. */
  entered(n: number): Promise<void> {
    if (this.#count >= n) return Promise.resolve();
    return new Promise((resolve) => this.#watchers.push({ n, resolve }));
  }
}
