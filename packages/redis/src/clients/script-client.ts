/**
 * What the store needs of a Redis client, the same for every client it takes, so the
 * scripts, batching, deadlines, breaker, over-limit cache and all-or-nothing path are one
 * code for all: a script call with the `NOSCRIPT` fallback, slot routing (the master of a
 * slot, for per-node deadlines and breakers), `DEL`, `INFO server`, and whether the client
 * knows its connection is lost, and `HGET` / `HVALS` for the operator entries
 * (`RedisStore#operations`). Replies are the client's own: integers as numbers, bulk
 * strings as strings (or Buffers with `raw`), arrays as arrays, on RESP2 and RESP3 alike.
 */
export interface ScriptClient {
  /** The client's kind, e.g. `'a node-redis Cluster client'` (for messages). */
  readonly kind: string;
  /** Whether keys are spread over Cluster slots (every key of one call in one slot). */
  readonly cluster: boolean;
  /**
   * `EVALSHA sha numKeys ...argv` (argv: the keys, then the arguments), routed by the
   * first key on a Cluster. Rejects with the server's error (message `NOSCRIPT ...` when
   * the script is not loaded). With `raw`, bulk strings may stay Buffers.
   */
  evalsha(sha: string, numKeys: number, argv: (string | number)[], raw: boolean): Promise<unknown>;
  /** `EVAL source numKeys ...argv` (loads the script), routed as {@link evalsha}. */
  eval(source: string, numKeys: number, argv: (string | number)[]): Promise<unknown>;
  /**
   * Optional: runs `script` its own way instead of `EVALSHA` with the `EVAL` fallback on
   * `NOSCRIPT` (what `LuaScript.runMany` does without it). The Upstash client sends `EVAL`
   * the first time it runs a script, saving the `NOSCRIPT` round trip of each new isolate.
   */
  run?(
    script: { readonly sha1: string; readonly source: string },
    numKeys: number,
    argv: (string | number)[],
  ): Promise<unknown>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
  /** `HGET key field` (the operator entries' version): a string, or null when absent. */
  hget(key: string, field: string): Promise<string | null>;
  /** `HVALS key` (the operator entries). */
  hvals(key: string): Promise<string[]>;
  /** `INFO server` of one node (any), as text. */
  info(): Promise<string>;
  /** The master serving `slot` (`host:port`) on a Cluster, undefined before it is known. */
  masterOf(slot: number): string | undefined;
  /**
   * An error when the client knows its connection is lost (reconnecting, closed): a call
   * then fails at once rather than wait in the client's offline queue, which would run it
   * after the reconnect, long after its caller got a fallback decision.
   */
  down(): Error | undefined;
  /**
   * Optional: calls to `server` (a {@link ScriptClient.masterOf} value; undefined: unknown)
   * failed or timed out. A Cluster client that does not follow a failover by itself
   * reloads its topology meanwhile (node-redis); ioredis does on its own.
   */
  lost?(server?: string): void;
}

/** The error of every call made while a client is down: one per state, made once. */
export const DOWN_ERRORS = {
  reconnecting: new Error('sluice: the Redis client is reconnecting'),
  close: new Error('sluice: the Redis client is close'),
  end: new Error('sluice: the Redis client is end'),
};
