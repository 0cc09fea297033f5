/** The part of autocannon 9's programmatic API the benches use (it ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string;
    connections: number;
    duration: number;
    /** Requests to make instead of `duration`. */
    amount?: number | undefined;
    /** Requests per second over all connections (bench:overload's `--load autocannon`). */
    overallRate?: number | undefined;
  }
  interface Result {
    /** Seconds actually measured. */
    duration: number;
    requests: { total: number; average: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  /** A run: its result, and each response as it comes (status, latency in ms). */
  interface Instance extends Promise<Result> {
    on(
      event: 'response',
      fn: (client: unknown, status: number, bytes: number, ms: number) => void,
    ): void;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
