/** The part of autocannon 9's programmatic API bench:http uses (it ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string;
    connections: number;
    duration: number;
    /** Requests to make instead of `duration`. */
    amount?: number | undefined;
  }
  interface Result {
    /** Seconds actually measured. */
    duration: number;
    requests: { total: number; average: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
