import { type Decision, SluiceConfigError, type Store } from '@sluice/core';
import {
  type Algorithm,
  checkOptionNames,
  enableOperations,
  fullKey,
  type OperationsOptions,
  type OperationsSync,
  optionNames,
  parseOperationsOption,
  type StoreRequest,
  type StoreReservation,
} from '@sluice/core/store';
import { DurableObjectOperations } from './operations.js';
import { shardOf } from './shard.js';
import { checkNamespace, ShardBatches } from './shard-batches.js';
import type { DurableObjectNamespaceLike } from './types.js';
import { fromWire, type Outcome } from './wire.js';

/**
 * Options of {@link DurableObjectStore}.
 * @example
 * ```ts
 * const options: DurableObjectStoreOptions = { namespace: () => env.SLUICE, shards: 4 };
 * ```
 */
export interface DurableObjectStoreOptions {
  /**
   * The Durable Object namespace bound to {@link SluiceDurableObject} (`env.SLUICE`), or a
   * function returning it, called at the first decision (for a store built at module scope
   * before `env` is at hand). Required.
   */
  namespace: DurableObjectNamespaceLike | (() => DurableObjectNamespaceLike);
  /**
   * How many objects the keys are spread over: an integer from 1 to 1024. Default 1. Each
   * key lives in the object of its shard (a stable hash of its `shardKey`, then
   * `idFromName('<name>:<shard>')`); one object decides roughly a thousand batches a second,
   * so raise it for more traffic. Changing it moves keys to other objects: their counts
   * start afresh.
   */
  shards?: number;
  /** The objects' name prefix: `idFromName('<name>:<shard>')`. Default `'sluice'`. */
  name?: string;
  /**
   * The part of a key that picks its shard. Default: the whole key. With `shards > 1` and
   * several limits per request (an array of limits, decided all-or-nothing), map the keys
   * of one request to one shard, e.g. by the subject (what follows `:ip:` or `:user:`; the
   * whole key when neither is in it):
   * `(key) => key.slice(Math.max(key.lastIndexOf(':ip:'), key.lastIndexOf(':user:'), 0))`.
   */
  shardKey?: (key: string) => string;
  /**
   * The operator entries (`LimitOperations`: bans, allow and deny lists, overrides):
   * `{ syncMs }`, how often each isolate re-reads their version, **ms** or a duration
   * string (default 5 s). An entry written in one isolate reaches every isolate on the
   * namespace within it, at no cost per decision.
   */
  operations?: OperationsOptions;
}

const OPTION_NAMES = optionNames<DurableObjectStoreOptions>({
  namespace: true,
  shards: true,
  name: true,
  shardKey: true,
  operations: true,
});

/**
 * A {@link Store} on Cloudflare Durable Objects: exact under any concurrency, across every
 * Worker instance and location. Each key lives in one {@link SluiceDurableObject} (one
 * object per shard), which runs sluice's own TypeScript algorithms on its transactional
 * storage, one batch at a time.
 *
 * Calls of one microtask turn (the limits of one request, a protocol's several charges)
 * go to their object in one `fetch`. `consume`, `consumeAll` (all-or-nothing: every key in
 * one shard, see `shardKey`), `refund` (outcome-aware counting, concurrency leases,
 * `costAfter`), `reserve` and `reserveAll` (GCRA reservations, `mode: 'queue'`, several
 * limits all-or-nothing in one shard) and `reset`. Every
 * built-in algorithm; a custom `Algorithm` (its own `step`) cannot run on the object and
 * is a `TypeError` at its first decision.
 *
 * Decisions use the calling Worker's clock (the limiter's `nowMs`). A failed fetch fails
 * every decision of its batch: the limiter's `onStoreError` decides them.
 *
 * Operator entries (`LimitOperations`) live in one object per limiter prefix,
 * `idFromName('<name>:ops:<prefix>')`, and reach every isolate on the namespace: this
 * store's limiters from their next decision, the others' within `operations.syncMs`.
 *
 * @throws {@link SluiceConfigError} naming `namespace` (missing, not a Durable Object
 *   namespace, or a KV namespace: KV is not a counter store), `shards`, `name`,
 *   `shardKey`, `operations`, `operations.syncMs`, or every unknown option.
 * @example
 * ```ts
 * import { LimitOperations, rateLimit } from '@sluice/hono';
 * import { DurableObjectStore } from '@sluice/cloudflare';
 * import { env } from 'cloudflare:workers';
 *
 * export { SluiceDurableObject } from '@sluice/cloudflare';
 * const store = new DurableObjectStore({ namespace: () => env.SLUICE, shards: 4 });
 * app.use(rateLimit({ limit: '100/min', store }));
 * // in an admin route: every isolate answers 429 within operations.syncMs (5 s)
 * await new LimitOperations({ store }).ban({ ip: '203.0.113.7' }, { for: '1h' });
 * ```
 */
export class DurableObjectStore implements Store {
  /** How many objects the keys are spread over. */
  readonly shards: number;
  /**
   * The operator entries (`LimitOperations`) of every limiter prefix, in the object
   * `'<name>:ops:<prefix>'` with a version each write bumps: this store's limiters see a
   * write from their next decision, other isolates' when they next read the version (every
   * `operations.syncMs`, default 5 s). Nothing is sent per decision.
   */
  readonly operations: OperationsSync;
  readonly #shardKey: ((key: string) => string) | undefined;
  readonly #batches: ShardBatches;

  constructor(options: DurableObjectStoreOptions) {
    if (options === null || typeof options !== 'object') {
      throw new SluiceConfigError('options', options, 'an options object { namespace, shards? }');
    }
    checkOptionNames(options, OPTION_NAMES, 'new DurableObjectStore()');
    const { namespace, shards = 1, name = 'sluice', shardKey } = options;
    if (typeof namespace !== 'function') checkNamespace(namespace);
    if (!Number.isInteger(shards) || shards < 1 || shards > 1024) {
      throw new SluiceConfigError('shards', shards, 'an integer from 1 to 1024');
    }
    if (typeof name !== 'string' || name.length === 0) {
      throw new SluiceConfigError('name', name, 'a non-empty string');
    }
    if (shardKey !== undefined && typeof shardKey !== 'function') {
      throw new SluiceConfigError('shardKey', shardKey, 'a function (key) => string');
    }
    const syncMs = parseOperationsOption(options.operations, 'DurableObjectStore');
    this.shards = shards;
    this.#shardKey = shardKey;
    this.#batches = new ShardBatches(namespace, name);
    enableOperations();
    this.operations = new DurableObjectOperations(this.#batches, syncMs);
  }

  /**
   * {@link Store.ready}: resolves once the `namespace` option gives a Durable Object
   * namespace (a function is called now, so call it where the binding exists: in Workers,
   * inside a request or from `env`); rejects with a `SluiceConfigError` naming
   * `namespace` otherwise. No I/O (a Worker may not do any outside a request): an object
   * that does not answer is a store failure `onStoreError` answers.
   */
  ready(): Promise<void> {
    try {
      this.#batches.checkNamespace();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The shard `key` lives in: 0 to `shards - 1`. */
  shardOf(key: string): number {
    if (this.shards === 1) return 0;
    return shardOf(this.#shardKey === undefined ? key : this.#shardKey(key), this.shards);
  }

  /** Each object is its own failure domain: one breaker per shard. */
  failureDomain(key: string): string {
    return `shard ${this.shardOf(key)}`;
  }

  consume(key: string, algorithm: Algorithm, cost: number, nowMs: number): Promise<Decision> {
    return this.#batches
      .send(this.shardOf(key), (a) => ({
        op: 'consume',
        key,
        a: a(algorithm, nowMs),
        cost,
        t: nowMs,
      }))
      .then(decisionOf);
  }

  /** {@link Store.consumeAtMost}: core's `stepAtMost` (up to `max` units) on the object. */
  consumeAtMost(key: string, algorithm: Algorithm, max: number, nowMs: number): Promise<Decision> {
    return this.#batches
      .send(this.shardOf(key), (a) => ({
        op: 'atMost',
        key,
        a: a(algorithm, nowMs),
        max,
        t: nowMs,
      }))
      .then(decisionOf);
  }

  /**
   * {@link Store.consumeAll}: every request admitted or none charged, decided by the object
   * in one step. The keys must live in one shard (always so with `shards: 1`); keys of
   * several shards are refused (rejected with a `SluiceConfigError` naming `shards`): two
   * objects cannot decide together.
   */
  consumeAll(requests: readonly StoreRequest[], nowMs: number): Promise<Decision[]> {
    const keys = requests.map(fullKey);
    const shard = this.#oneShard(keys);
    if (typeof shard !== 'number') return Promise.reject(shard);
    return this.#batches
      .send(shard, (a) => ({
        op: 'all',
        keys,
        a: requests.map((r) => a(r.algorithm, nowMs)),
        costs: requests.map((r) => r.cost),
        t: nowMs,
      }))
      .then((outcome) => {
        if ('error' in outcome) throw new Error(outcome.error);
        return (outcome as { all: Parameters<typeof fromWire>[0][] }).all.map(fromWire);
      });
  }

  /**
   * {@link Store.reserveAll}: every request's slot booked or none (`mode: 'queue'` on a
   * route with several limits), decided by the object in one step as `MemoryStore` decides
   * it. The keys must live in one shard, as for {@link DurableObjectStore.consumeAll}.
   * @throws `TypeError` for an algorithm without `reserve` (a window: no future slot).
   */
  reserveAll(
    requests: readonly StoreRequest[],
    nowMs: number,
    maxWaitMs: number,
  ): Promise<StoreReservation[]> {
    for (const r of requests) {
      if (typeof r.algorithm.reserve !== 'function') {
        throw new TypeError(
          `sluice: ${r.algorithm.description} cannot reserve (a window has no future slot)`,
        );
      }
    }
    const keys = requests.map(fullKey);
    const shard = this.#oneShard(keys);
    if (typeof shard !== 'number') return Promise.reject(shard);
    return this.#batches
      .send(shard, (a) => ({
        op: 'reserveAll',
        keys,
        a: requests.map((r) => a(r.algorithm, nowMs)),
        costs: requests.map((r) => r.cost),
        t: nowMs,
        maxWait: maxWaitMs,
      }))
      .then((outcome) => {
        if ('error' in outcome) throw new Error(outcome.error);
        return (outcome as { reserved: [Parameters<typeof fromWire>[0], number][] }).reserved.map(
          ([d, delayMs]) => ({ decision: fromWire(d), delayMs }),
        );
      });
  }

  /** The one shard of `keys`, or the error refusing keys of several shards. */
  #oneShard(keys: readonly string[]): number | SluiceConfigError {
    const shards = new Set(keys.map((k) => this.shardOf(k)));
    if (shards.size === 1) return shards.values().next().value!;
    return new SluiceConfigError('shards', this.shards, 'keys of one request in one shard', {
      hint:
        `an all-or-nothing decision (an array of limits) spans ${shards.size} shards, and ` +
        'two Durable Objects cannot decide together: use shards: 1, or a shardKey that ' +
        "maps one request's keys to one shard",
    });
  }

  /** {@link Store.refund}: the algorithm's `refund` on the object. */
  refund(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    atMs: number,
  ): Promise<Decision> {
    return this.#batches
      .send(this.shardOf(key), (a) => ({
        op: 'refund',
        key,
        a: a(algorithm, nowMs),
        cost,
        t: nowMs,
        at: atMs,
      }))
      .then(decisionOf);
  }

  /** {@link Store.reserve}: the algorithm's `reserve` on the object (GCRA). */
  reserve(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    maxWaitMs: number,
  ): Promise<StoreReservation> {
    if (typeof algorithm.reserve !== 'function') {
      throw new TypeError(
        `sluice: ${algorithm.description} cannot reserve (a window has no future slot)`,
      );
    }
    return this.#batches
      .send(this.shardOf(key), (a) => ({
        op: 'reserve',
        key,
        a: a(algorithm, nowMs),
        cost,
        t: nowMs,
        maxWait: maxWaitMs,
      }))
      .then((outcome) => ({
        decision: decisionOf(outcome),
        delayMs: (outcome as { delay: number }).delay,
      }));
  }

  reset(key: string): Promise<void> {
    return this.#batches
      .send(this.shardOf(key), () => ({ op: 'reset', key }))
      .then((outcome) => {
        if ('error' in outcome) throw new Error(outcome.error);
      });
  }
}

/** The decision of an outcome; an object's error becomes this call's error. */
function decisionOf(outcome: Outcome): Decision {
  if ('error' in outcome) throw new Error(outcome.error);
  return fromWire((outcome as { d: Parameters<typeof fromWire>[0] }).d);
}
