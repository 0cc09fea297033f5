import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** What the store needs of an ioredis client: `Redis` and `Cluster` both have it. */
export type RedisClient = Pick<Redis | Cluster, 'evalsha' | 'eval' | 'del'>;

/**
 * A Lua script run by `EVALSHA` (one round trip), falling back to `EVAL` (which also loads
 * it) when Redis answers `NOSCRIPT`, e.g. after `SCRIPT FLUSH`, a restart or a failover.
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

  /** Runs the script with `argv` = `numKeys` keys, then the arguments (no copy made). */
  runMany(client: RedisClient, numKeys: number, argv: (string | number)[]): Promise<unknown> {
    // ioredis flattens an array argument: one array for keys and arguments, no spread.
    const flat = argv as string[];
    return client.evalsha(this.sha1, numKeys, flat).catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return client.eval(this.source, numKeys, flat);
      }
      throw error;
    });
  }
}
