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
   * `NOSCRIPT` (what `LuaScript.runMany` does without it). The Upstash and GLIDE clients
   * send `EVAL` the first time they run a script ({@link evalFirst}). `raw` as in
   * {@link ScriptClient.evalsha}.
   */
  run?(
    script: { readonly sha1: string; readonly source: string },
    numKeys: number,
    argv: (string | number)[],
    raw?: boolean,
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
   * reloads its topology meanwhile (node-redis); ioredis does on its own. A `GlideClient`,
   * which tells no connection state, pings its server until it answers (`down` fails calls
   * meanwhile).
   */
  lost?(server?: string): void;
}

/** The error of every call made while a client is down: one per state, made once. */
export const DOWN_ERRORS = {
  reconnecting: new Error('sluice: the Redis client is reconnecting'),
  close: new Error('sluice: the Redis client is close'),
  end: new Error('sluice: the Redis client is end'),
};

/**
 * A {@link ScriptClient.run} that sends a script this client has not run yet as `EVAL` (its
 * source, which loads it), and by SHA from then on, `EVAL` again on `NOSCRIPT` (after a
 * restart, `SCRIPT FLUSH`, a failover, or another Cluster node). Upstash: an isolate of an
 * edge runtime lives briefly, and `EVALSHA` first would cost each new one a `NOSCRIPT` round
 * trip per script. GLIDE: its core logs a warning line for every error reply, so each
 * script's first `NOSCRIPT` would print one per call in flight.
 *
 * `nodeOf` (a Cluster): the node a call goes to (`host:port`, undefined while unknown: the
 * call goes as `EVAL`), for a script is loaded per node.
 */
export function evalFirst(
  evalsha: ScriptClient['evalsha'],
  evalSource: ScriptClient['eval'],
  nodeOf?: (numKeys: number, argv: (string | number)[]) => string | undefined,
): NonNullable<ScriptClient['run']> {
  /** The scripts this client has run (with the node, on a Cluster): sent by SHA from then on. */
  const loaded = new Set<string>();
  return (script, numKeys, argv, raw = false) => {
    const { sha1, source } = script;
    const node = nodeOf === undefined ? '' : nodeOf(numKeys, argv);
    const id = node === undefined ? undefined : node === '' ? sha1 : `${sha1}@${node}`;
    if (id === undefined || !loaded.has(id)) {
      return evalSource(source, numKeys, argv).then((reply) => {
        if (id !== undefined) loaded.add(id);
        return reply;
      });
    }
    return evalsha(sha1, numKeys, argv, raw).catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return evalSource(source, numKeys, argv);
      }
      throw error;
    });
  };
}
