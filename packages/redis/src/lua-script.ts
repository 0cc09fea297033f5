import { createHash } from 'node:crypto';
import { type Cluster, Command, type Redis } from 'ioredis';

/** What the store needs of an ioredis client: `Redis` and `Cluster` both have it. */
export type RedisClient = Pick<Redis | Cluster, 'evalsha' | 'eval' | 'del'>;

/** The parts of an ioredis client the direct send uses (both `Redis` and `Cluster` have them). */
interface CommandSender {
  sendCommand?: (command: Command) => Promise<unknown>;
  options?: { keyPrefix?: string };
}

/**
 * A Lua script run by `EVALSHA` (one round trip), falling back to `EVAL` (which also loads
 * it) when Redis answers `NOSCRIPT`, e.g. after `SCRIPT FLUSH`, a restart or a failover.
 *
 * `EVALSHA` goes to the client as an ioredis `Command` through `sendCommand` (as ioredis's
 * own `client.evalsha` does without auto-pipelining), so a client made with
 * `enableAutoPipelining` sends it at once too: the store batches its decisions itself, and
 * ioredis's auto-pipeline would hold each batch back until the previous pipeline of the
 * node had answered (one batch in flight at a time). The client's `keyPrefix` applies.
 */
export class LuaScript {
  /** The script's Lua source. */
  readonly source: string;
  /** The SHA-1 of {@link LuaScript.source}, as `EVALSHA` takes it. */
  readonly sha1: string;

  constructor(source: string) {
    this.source = source;
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script on one key. */
  run(client: RedisClient, key: string, args: (string | number)[]): Promise<unknown> {
    return this.runMany(client, 1, [key, ...args]);
  }

  /**
   * Runs the script with `argv` = `numKeys` keys, then the arguments (no copy made). With
   * `raw`, bulk strings in the reply (only error texts, in our scripts) stay Buffers and the
   * reply array is not copied; integers are numbers either way.
   */
  runMany(
    client: RedisClient,
    numKeys: number,
    argv: (string | number)[],
    raw = false,
  ): Promise<unknown> {
    // ioredis flattens an array argument: one array for keys and arguments, no spread.
    const flat = argv as string[];
    return this.#evalsha(client, numKeys, flat, raw).catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return client.eval(this.source, numKeys, flat);
      }
      throw error;
    });
  }

  #evalsha(client: RedisClient, numKeys: number, flat: string[], raw: boolean): Promise<unknown> {
    const sender = client as CommandSender;
    if (typeof sender.sendCommand !== 'function') return client.evalsha(this.sha1, numKeys, flat);
    const command = new Command('evalsha', [this.sha1, numKeys, flat], {
      keyPrefix: sender.options?.keyPrefix,
      replyEncoding: raw ? null : 'utf8',
    });
    return sender.sendCommand(command);
  }
}
