import { evalFirst, type ScriptClient } from './script-client.js';

/** One command's reply in an `@upstash/redis` pipeline run with `keepErrors`. */
interface PipelineReply {
  result?: unknown;
  error?: string | null;
}

/** The parts of an `@upstash/redis` pipeline the store uses. */
interface UpstashPipeline {
  evalsha(sha: string, keys: string[], args: (string | number)[]): unknown;
  eval(source: string, keys: string[], args: (string | number)[]): unknown;
  del(key: string): unknown;
  hget(key: string, field: string): unknown;
  hvals(key: string): unknown;
  exec(options: { keepErrors: true }): Promise<PipelineReply[]>;
}

/** The parts of an `@upstash/redis` `Redis` the store uses. */
interface Upstash {
  pipeline(): UpstashPipeline;
}

/**
 * Whether `value` has the shape of an `@upstash/redis` `Redis` (a REST client over `fetch`):
 * `pipeline`, `evalsha` and `createScript`, and neither ioredis's `defineCommand` nor
 * node-redis's `sendCommand`. Read through the client's auto-pipelining proxy alike.
 */
export function isUpstashShaped(value: object): boolean {
  const v = value as Record<string, unknown>;
  return (
    typeof v.pipeline === 'function' &&
    typeof v.evalsha === 'function' &&
    typeof v.createScript === 'function' &&
    typeof v.defineCommand !== 'function' &&
    typeof v.sendCommand !== 'function'
  );
}

/**
 * The version line `INFO server` would give, by a script (the client has no `INFO` in a
 * pipeline): `redis.REDIS_VERSION` on Redis 7+, else `INFO server` from inside the script,
 * else nothing (the store then runs unchecked, as on a server that refuses `INFO`).
 */
const VERSION_SCRIPT = `if redis.REDIS_VERSION then return 'redis_version:' .. redis.REDIS_VERSION end
local info = redis.pcall('INFO', 'server')
if type(info) == 'string' then return info end
return ''`;

/** The error of a reply that is no `{ result }` / `{ error }` entry. */
const OLD_CLIENT =
  'sluice: the @upstash/redis pipeline did not answer { result, error } per command: RedisStore needs @upstash/redis 1.35 or later';

/** A command queued for the next pipeline, and its caller. */
interface Queued {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The error of a failed REST request, without what the client appends: `@upstash/redis`
 * ends its message with `, command was: [...]`, the command's keys and arguments (user
 * text: a key may hold a user id), which must not reach a log.
 */
function restError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const at = error.message.indexOf(', command was:');
  if (at === -1) return error;
  const clean = new Error(`sluice: the Upstash REST API answered: ${error.message.slice(0, at)}`);
  clean.name = error.name;
  return clean;
}

/**
 * The {@link ScriptClient} of an `@upstash/redis` client: every command the store sends in
 * one turn of the event loop (the batching engine sends a turn's batches together) goes in
 * one `pipeline()`, one HTTP request (`POST /pipeline`), whatever the client's own
 * `enableAutoPipelining`. Each script stays atomic on its own; the pipeline only saves
 * round trips. Replies per command (`keepErrors`): a `NOSCRIPT` error rejects that command
 * alone, so its `EVAL` fallback goes in the next request. A script's first run is an `EVAL`. There is no connection to lose
 * (`down` is never set) and no Cluster: the REST endpoint is one server to the store.
 */
export function upstashClient(client: object): ScriptClient {
  const c = client as Upstash;
  let pipeline: UpstashPipeline | undefined;
  let queued: Queued[] = [];

  const flush = (): void => {
    const sending = pipeline!;
    const callers = queued;
    pipeline = undefined;
    queued = [];
    let replies: Promise<PipelineReply[]>;
    try {
      replies = sending.exec({ keepErrors: true });
    } catch (error) {
      replies = Promise.reject(error);
    }
    replies.then(
      (results) => {
        for (let i = 0; i < callers.length; i++) {
          const reply = results[i];
          const caller = callers[i]!;
          if (
            reply === null ||
            typeof reply !== 'object' ||
            !('result' in reply || 'error' in reply)
          ) {
            // A client older than 1.35 ignores `keepErrors` and answers bare values.
            caller.reject(new Error(OLD_CLIENT));
          } else if (reply.error !== undefined && reply.error !== null) {
            caller.reject(new Error(String(reply.error)));
          } else {
            caller.resolve(reply.result);
          }
        }
      },
      (error: unknown) => {
        const failed = restError(error);
        for (const caller of callers) caller.reject(failed);
      },
    );
  };

  /** Adds one command to this turn's pipeline; resolves with its reply. */
  const send = (add: (pipeline: UpstashPipeline) => void): Promise<unknown> => {
    if (pipeline === undefined) {
      pipeline = c.pipeline();
      // perf: a microtask, not a timer: the engine sends all of a turn's batches in one
      // synchronous loop, so they are all queued by then.
      queueMicrotask(flush);
    }
    add(pipeline);
    return new Promise((resolve, reject) => {
      queued.push({ resolve, reject });
    });
  };

  const evalsha = (sha: string, numKeys: number, argv: (string | number)[]) =>
    send((p) => p.evalsha(sha, keysOf(argv, numKeys), argsOf(argv, numKeys)));
  const evalSource = (source: string, numKeys: number, argv: (string | number)[]) =>
    send((p) => p.eval(source, keysOf(argv, numKeys), argsOf(argv, numKeys)));

  return {
    kind: 'an @upstash/redis client',
    cluster: false,
    evalsha,
    eval: evalSource,
    run: evalFirst(evalsha, evalSource),
    del: (key) => send((p) => p.del(key)),
    // The client parses JSON-looking replies by default (`automaticDeserialization`): the
    // operator entries are JSON text, so a parsed value is turned back into its text.
    hget: (key, field) => send((p) => p.hget(key, field)).then((v) => (v == null ? null : text(v))),
    hvals: (key) => send((p) => p.hvals(key)).then((vs) => (Array.isArray(vs) ? vs.map(text) : [])),
    info: () => send((p) => p.eval(VERSION_SCRIPT, [], [])).then(String),
    masterOf: () => '',
    down: () => undefined,
  };
}

function keysOf(argv: (string | number)[], numKeys: number): string[] {
  const keys: string[] = [];
  for (let i = 0; i < numKeys; i++) keys.push(String(argv[i]));
  return keys;
}

function argsOf(argv: (string | number)[], numKeys: number): (string | number)[] {
  return numKeys === 0 ? argv : argv.slice(numKeys);
}

/** A reply as the text Redis holds (the client may have parsed it as JSON). */
function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
