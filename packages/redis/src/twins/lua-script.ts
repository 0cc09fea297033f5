import type { ScriptClient } from '../clients/client.js';
import { sha1 } from '../runtime/sha1.js';

/**
 * A Lua script run by `EVALSHA` (one round trip), falling back to `EVAL` (which also loads
 * it) when Redis answers `NOSCRIPT`, e.g. after `SCRIPT FLUSH`, a restart or a failover.
 *
 * Runs on every client the store takes, through its {@link ScriptClient} (see
 * clients/client.ts): ioredis's direct send (no auto-pipelining), node-redis's `sendCommand`,
 * GLIDE's `customCommand`.
 */
export class LuaScript {
  /** The script's Lua source. */
  readonly source: string;
  /** The SHA-1 of {@link LuaScript.source}, as `EVALSHA` takes it. */
  readonly sha1: string;

  constructor(source: string) {
    this.source = source;
    this.sha1 = sha1(source, 'hex');
  }

  /**
   * Runs the script on `driver` (the store's client, resolved once) with `argv` = `numKeys` keys, then the arguments (no copy made). With
   * `raw`, bulk strings in the reply (only error texts, in our scripts) stay Buffers and the
   * reply array is not copied; integers are numbers either way.
   */
  runMany(
    driver: ScriptClient,
    numKeys: number,
    argv: (string | number)[],
    raw = false,
  ): Promise<unknown> {
    if (driver.run !== undefined) return driver.run(this, numKeys, argv, raw);
    return driver.evalsha(this.sha1, numKeys, argv, raw).catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return driver.eval(this.source, numKeys, argv);
      }
      throw error;
    });
  }
}
