import { SluiceConfigError } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import {
  type DurableObjectIdLike,
  type DurableObjectNamespaceLike,
  isKvNamespaceLike,
  KV_REFUSAL,
} from './types.js';
import {
  type AlgorithmSpec,
  type Batch,
  type BatchReply,
  type Operation,
  type Outcome,
  specOf,
} from './wire.js';

/** One decision waiting in a batch. */
interface Waiter {
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

/** The decisions of one shard gathered in one microtask turn. */
interface Pending {
  algorithms: AlgorithmSpec[];
  /** Index of each algorithm's wire form (its JSON) in `algorithms`. */
  index: Map<string, number>;
  ops: Operation[];
  waiters: Waiter[];
}

/**
 * Where a batch goes: a shard's number (`idFromName('<name>:<shard>')`), or the name of
 * another object after `'<name>:'` (`'ops:<prefix>'`, the operator entries of a prefix).
 */
export type Target = number | string;

/**
 * How `DurableObjectStore` reaches its objects: the operations queued in one microtask turn
 * for one object go to it in one fetch, and each caller gets its own outcome. No timer: a
 * batch leaves at the end of the turn that opened it, in that turn's request context.
 */
export class ShardBatches {
  readonly #name: string;
  readonly #namespaceOption: DurableObjectNamespaceLike | (() => DurableObjectNamespaceLike);
  #namespace: DurableObjectNamespaceLike | undefined;
  readonly #ids = new Map<Target, DurableObjectIdLike>();
  readonly #pending = new Map<Target, Pending>();

  /** @param namespace - checked already when it is not a function (see {@link checkNamespace}). */
  constructor(
    namespace: DurableObjectNamespaceLike | (() => DurableObjectNamespaceLike),
    name: string,
  ) {
    this.#name = name;
    this.#namespaceOption = namespace;
    if (typeof namespace !== 'function') this.#namespace = namespace;
  }

  /**
   * Queues one operation for the next batch of `shard` (a {@link Target}), sent at the end
   * of this microtask turn, and resolves with its outcome. `make` builds it, given a function that returns
   * an algorithm's index in the batch (a `TypeError` for one that cannot cross).
   */
  send(
    shard: Target,
    make: (a: (algorithm: Algorithm, nowMs: number) => number) => Operation,
  ): Promise<Outcome> {
    const pending = this.#pending.get(shard);
    const batch: Pending = pending ?? { algorithms: [], index: new Map(), ops: [], waiters: [] };
    let op: Operation;
    try {
      op = make((algorithm, nowMs) => {
        const spec = specOf(algorithm, nowMs);
        const id = JSON.stringify(spec);
        let i = batch.index.get(id);
        if (i === undefined) {
          i = batch.algorithms.push(spec) - 1;
          batch.index.set(id, i);
        }
        return i;
      });
    } catch (error) {
      return Promise.reject(error);
    }
    if (pending === undefined) {
      this.#pending.set(shard, batch);
      queueMicrotask(() => this.#flush(shard));
    }
    return new Promise<Outcome>((resolve, reject) => {
      batch.ops.push(op);
      batch.waiters.push({ resolve, reject });
    });
  }

  /** Sends `shard`'s batch in one fetch and answers each of its decisions. */
  async #flush(shard: Target): Promise<void> {
    const batch = this.#pending.get(shard)!;
    this.#pending.delete(shard);
    const body: Batch = { algorithms: batch.algorithms, ops: batch.ops };
    let reply: BatchReply;
    const object = typeof shard === 'number' ? `shard ${shard}` : 'the operator entries';
    try {
      const namespace = this.#resolveNamespace();
      let id = this.#ids.get(shard);
      if (id === undefined) {
        id = namespace.idFromName(`${this.#name}:${shard}`);
        this.#ids.set(shard, id);
      }
      const response = await namespace.get(id).fetch('https://sluice.internal/batch', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) {
        throw new Error(
          `sluice: the Durable Object of ${object} answered ${response.status}: ${(await response.text()).slice(0, 200)}`,
        );
      }
      reply = (await response.json()) as BatchReply;
      if (!Array.isArray(reply.outcomes) || reply.outcomes.length !== batch.ops.length) {
        throw new Error(`sluice: the Durable Object of ${object} answered a malformed batch`);
      }
    } catch (error) {
      for (const w of batch.waiters) w.reject(error);
      return;
    }
    for (const [i, w] of batch.waiters.entries()) w.resolve(reply.outcomes[i]!);
  }

  /** Resolves the namespace option now: a `SluiceConfigError` when it is not a namespace. */
  checkNamespace(): void {
    this.#resolveNamespace();
  }

  #resolveNamespace(): DurableObjectNamespaceLike {
    if (this.#namespace === undefined) {
      const namespace = (this.#namespaceOption as () => DurableObjectNamespaceLike)();
      checkNamespace(namespace);
      this.#namespace = namespace;
    }
    return this.#namespace;
  }
}

/** @throws {@link SluiceConfigError} naming `namespace` unless it is a Durable Object namespace. */
export function checkNamespace(namespace: unknown): void {
  const n = namespace as DurableObjectNamespaceLike | null;
  if (
    n !== null &&
    typeof n === 'object' &&
    typeof n.idFromName === 'function' &&
    typeof n.get === 'function'
  ) {
    return;
  }
  throw new SluiceConfigError(
    'namespace',
    namespace,
    'a Durable Object namespace bound to SluiceDurableObject (env.SLUICE), or () => it',
    { hint: isKvNamespaceLike(namespace) ? KV_REFUSAL : undefined },
  );
}
