import { DOWN_ERRORS, type ScriptClient } from './script-client.js';

/** The parts of an ioredis (or iovalkey) `Redis` or `Cluster` the store uses. */
interface Ioredis {
  status?: unknown;
  isCluster?: unknown;
  options?: { keyPrefix?: string };
  slots?: (string[] | undefined)[];
  evalsha(...args: unknown[]): Promise<unknown>;
  eval(...args: unknown[]): Promise<unknown>;
  del(key: string): Promise<unknown>;
  hget(key: string, field: string): Promise<string | null>;
  hvals(key: string): Promise<string[]>;
  info(section: string): Promise<string>;
  sendCommand?(command: unknown): Promise<unknown>;
  pipeline?(): { ping(): unknown; sendCommand?: unknown };
}

/** ioredis's `Command` class, as the client's own package has it. */
type CommandClass = new (
  name: string,
  args: unknown[],
  options: { keyPrefix?: string; replyEncoding: string | null },
) => unknown;

/**
 * Whether `value` has the shape of an ioredis client (`Redis` or `Cluster`; iovalkey, its
 * fork, has the same): `evalsha`, `defineCommand` and a `status` string.
 */
export function isIoredisShaped(value: object): boolean {
  const v = value as Record<string, unknown>;
  return (
    typeof v.evalsha === 'function' &&
    typeof v.defineCommand === 'function' &&
    typeof v.status === 'string'
  );
}

/**
 * The `Command` class of `client`'s own ioredis (or iovalkey) package, without importing
 * either (each is an optional peer): a pipeline builds one for a command it is given, and
 * this pipeline's `sendCommand` only takes its class. Nothing is sent; the pipeline is
 * dropped. Undefined when the client has no such pipeline (a stand-in in a test).
 */
function commandClassOf(client: Ioredis): CommandClass | undefined {
  if (typeof client.pipeline !== 'function' || typeof client.sendCommand !== 'function') {
    return undefined;
  }
  try {
    const pipeline = client.pipeline();
    let found: CommandClass | undefined;
    pipeline.sendCommand = (command: { constructor: CommandClass; promise?: Promise<unknown> }) => {
      found = command.constructor;
      command.promise?.catch(() => undefined);
      return command.promise;
    };
    pipeline.ping();
    return found;
  } catch {
    return undefined;
  }
}

/**
 * The {@link ScriptClient} of an ioredis or iovalkey client.
 *
 * `EVALSHA` goes to the client as a `Command` through `sendCommand` (as the client's own
 * `evalsha` does without auto-pipelining), so a client made with `enableAutoPipelining`
 * sends it at once too: the store batches its decisions itself, and the client's
 * auto-pipeline would hold each batch back until the node's previous pipeline had answered
 * (one batch in flight at a time). The client's `keyPrefix` applies.
 */
export function ioredisClient(client: object): ScriptClient {
  const c = client as Ioredis;
  const cluster = c.isCluster === true;
  const Command = commandClassOf(c);
  const direct = Command !== undefined && typeof c.sendCommand === 'function';
  return {
    kind: cluster ? 'an ioredis Cluster client' : 'an ioredis Redis client',
    cluster,
    evalsha(sha, numKeys, argv, raw) {
      // ioredis flattens an array argument: one array for keys and arguments, no spread.
      if (!direct) return c.evalsha(sha, numKeys, argv);
      return c.sendCommand!(
        new Command!('evalsha', [sha, numKeys, argv], {
          keyPrefix: c.options?.keyPrefix,
          replyEncoding: raw ? null : 'utf8',
        }),
      );
    },
    eval: (source, numKeys, argv) => c.eval(source, numKeys, argv),
    del: (key) => c.del(key),
    hget: (key, field) => c.hget(key, field),
    hvals: (key) => c.hvals(key),
    info: () => c.info('server'),
    masterOf: (slot) => c.slots?.[slot]?.[0],
    down() {
      const status = c.status;
      if (status === 'reconnecting' || status === 'close' || status === 'end') {
        return DOWN_ERRORS[status];
      }
      return undefined;
    },
  };
}
