import { entriesInForce, type OperationEntry, type OperationsSync } from '@sluice/core/store';
import type { DeadlineQueue } from '../batching/deadline-queue.js';
import type { ScriptClient } from '../clients/client.js';
import { redisKey } from '../redis-key.js';
import { unrefTimeout } from '../runtime/timers.js';
import { OPERATIONS_SCRIPT } from './operations.lua.js';
import { type Subscriber, subscriberOf } from './subscriber.js';

/** What {@link RedisOperations} needs of its store. */
export interface OperationsContext {
  /** The user's client (duplicated for the pub/sub connection). */
  client: object;
  driver: ScriptClient;
  /** The store's Redis key prefix (option `prefix`). */
  storePrefix: string;
  deadlines: DeadlineQueue;
  /** Option `operations.syncMs` (ms); undefined: the core's default. */
  syncMs: number | undefined;
}

/** How long a failed catch-up read is tried again, ms (then the version check takes over). */
const RECHECK_FOR_MS = 30_000;

/** The Redis keys and channel of one limiter prefix's entries. */
interface Space {
  keys: [entries: string, expiries: string, version: string];
  channel: string;
  listeners: Set<(version: number) => void>;
}

/**
 * `RedisStore#operations`: the operator entries of each limiter prefix in
 * Redis, shared by every process on it.
 *
 * Keys, all in one Cluster slot per prefix (`<store prefix>{<prefix>}` is the hash tag):
 * `<store prefix>{<prefix>}:ops` (hash: id → entry JSON), `…:ops:exp` (sorted set: id →
 * `until`, the per-entry expiry Redis 7.0 lacks) and `…:ops:v` (the version, field `v` of a hash: the hash commands are the operations',
 * the string ones the algorithms', so `INFO commandstats` tells them apart). A write is
 * one script that prunes what has expired, writes, bumps the version and publishes it on
 * the channel `…:ops` (plain `PUBLISH`: on a Cluster it reaches every node); a read is a
 * plain `HGET` and `HVALS` (no script: a process's start-up and its version checks add no
 * script call). Each process
 * listens on one connection of its own (see {@link subscriberOf}); nothing is sent per
 * decision: limiters decide from the snapshot the core keeps.
 */
export class RedisOperations implements OperationsSync {
  readonly shared = true;
  /** How often each process re-checks the version, ms (option `operations.syncMs`). */
  readonly syncMs: number | undefined;
  readonly #context: OperationsContext;
  readonly #spaces = new Map<string, Space>();
  /** Channel → space, for the messages. */
  readonly #channels = new Map<string, Space>();
  #subscriber: Subscriber | undefined;
  #closed = false;

  constructor(context: OperationsContext) {
    this.#context = context;
    this.syncMs = context.syncMs;
  }

  #space(prefix: string): Space {
    let space = this.#spaces.get(prefix);
    if (space === undefined) {
      const base = `${redisKey(this.#context.storePrefix, prefix, true)}:ops`;
      // ioredis applies its `keyPrefix` to the keys; the channel gets the same, so two apps
      // that differ only by it do not hear each other.
      const keyPrefix = (this.#context.client as { options?: { keyPrefix?: unknown } }).options
        ?.keyPrefix;
      space = {
        keys: [base, `${base}:exp`, `${base}:v`],
        channel: (typeof keyPrefix === 'string' ? keyPrefix : '') + base,
        listeners: new Set(),
      };
      this.#spaces.set(prefix, space);
    }
    return space;
  }

  /** Rejects at once when the client knows its connection is lost (no offline queue). */
  #call<T>(call: (driver: ScriptClient) => Promise<T>): Promise<T> {
    const { driver, deadlines } = this.#context;
    const down = driver.down();
    if (down) return Promise.reject(down);
    return deadlines.wrap(call(driver));
  }

  #write(
    prefix: string,
    mode: 'put' | 'remove',
    id: string,
    json = '',
    until = '',
  ): Promise<number> {
    const space = this.#space(prefix);
    const argv = [...space.keys, mode, Date.now(), space.channel, id, json, until];
    return this.#call((driver) => OPERATIONS_SCRIPT.runMany(driver, 3, argv)).then(Number);
  }

  /**
   * `HGET` the version, then `HVALS` the entries, sent together on one connection (one slot),
   * so Redis runs them in that order: the entries are those of that version or a later one,
   * and a later one is announced (and loaded) again. Entries past their `until` are left
   * out (the next write removes them from Redis).
   */
  async load(prefix: string): Promise<{ version: number; entries: OperationEntry[] }> {
    const [entriesKey, , versionKey] = this.#space(prefix).keys;
    const [version, texts] = await this.#call((driver) =>
      Promise.all([driver.hget(versionKey, 'v'), driver.hvals(entriesKey)]),
    );
    return { version: Number(version ?? 0), entries: entriesInForce(texts, Date.now()) };
  }

  put(prefix: string, entry: OperationEntry): Promise<number> {
    const until = entry.until === null ? '' : String(entry.until);
    return this.#write(prefix, 'put', entry.id, JSON.stringify(entry), until);
  }

  remove(prefix: string, id: string): Promise<number> {
    return this.#write(prefix, 'remove', id);
  }

  /** `HGET` of the version (field `v` of `…:ops:v`): one command per prefix per `syncMs` in each process. */
  async version(prefix: string): Promise<number> {
    const versionKey = this.#space(prefix).keys[2];
    return Number((await this.#call((driver) => driver.hget(versionKey, 'v'))) ?? 0);
  }

  /**
   * Listens on `prefix`'s channel (one pub/sub connection per store, made on the first
   * call). After the connection is lost and back, every listener is told the current
   * version (messages published meanwhile were lost). Best effort: a failed subscription
   * is caught up by the core's version check every `syncMs`.
   */
  subscribe(prefix: string, onChange: (version: number) => void): () => void {
    if (this.#closed) return () => undefined;
    const space = this.#space(prefix);
    const first = space.listeners.size === 0;
    space.listeners.add(onChange);
    if (first) {
      this.#channels.set(space.channel, space);
      this.#subscriber ??= subscriberOf(this.#context.client, {
        message: (channel, text) => this.#tell(this.#channels.get(channel), Number(text)),
        resubscribed: () => this.#recheck(),
      });
      // Once the subscription stands, the version it may have missed while being set up.
      this.#subscriber.add(space.channel).then(
        () => this.#recheck(space),
        () => undefined,
      );
    }
    return () => {
      if (!space.listeners.delete(onChange) || space.listeners.size > 0) return;
      this.#channels.delete(space.channel);
      this.#subscriber?.drop(space.channel).catch(() => undefined);
    };
  }

  #tell(space: Space | undefined, version: number): void {
    if (space === undefined || !Number.isFinite(version)) return;
    for (const listener of [...space.listeners]) listener(version);
  }

  /**
   * Tells the listeners of `space` (of every space when undefined) the current version. A
   * read that fails (after a failover the subscriber is often back before the store's own
   * client) is tried again, 100 ms then doubling up to 2 s apart, for up to
   * {@link RECHECK_FOR_MS}: a change published while the subscriber was away would otherwise
   * wait for the next version check.
   */
  #recheck(space?: Space, since?: number): void {
    for (const [prefix, s] of this.#spaces) {
      if ((space !== undefined && s !== space) || s.listeners.size === 0) continue;
      const first = since ?? Date.now();
      this.version(prefix).then(
        (v) => this.#tell(s, v),
        () => {
          const waited = Date.now() - first;
          if (this.#closed || waited >= RECHECK_FOR_MS) return;
          const delay = Math.min(2000, Math.max(100, waited));
          unrefTimeout(() => this.#recheck(s, first), delay);
        },
      );
    }
  }

  /** Closes the pub/sub connection; listeners hear nothing more. */
  async close(): Promise<void> {
    this.#closed = true;
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    for (const space of this.#spaces.values()) space.listeners.clear();
    this.#channels.clear();
    await subscriber?.close();
  }
}
