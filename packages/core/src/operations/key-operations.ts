import type { Algorithm } from '../algorithms/algorithm.js';
import type { Decision } from '../algorithms/decision.js';
import type { Store } from '../stores/store.js';
import type { OperationSubject } from './entry.js';
import { rescaled } from './rescale.js';
import type { Inspectable, InspectedKey, OperationsSnapshot, Override } from './snapshot.js';

/**
 * What operator entries say about a `RateLimiter`'s keys (`{ key }` subjects): allow, deny
 * and ban decide without the store, an override runs the limiter's algorithm family at the
 * override's quota on the same key. Registered with the snapshot for `inspect()`, held by
 * its limiter.
 */
export class KeyOperations implements Inspectable {
  readonly snapshot: OperationsSnapshot;
  readonly #algorithm: Algorithm;
  /** `<prefix><algorithm tag>:`, the limiter's key prefix. */
  readonly #prefix: string;
  readonly #keySpace: Store;
  /** The algorithm under each override in force, made once (`undefined`: not applicable). */
  readonly #overridden = new WeakMap<Override, Algorithm | undefined>();

  constructor(snapshot: OperationsSnapshot, algorithm: Algorithm, prefix: string, keySpace: Store) {
    this.snapshot = snapshot;
    this.#algorithm = algorithm;
    this.#prefix = prefix;
    this.#keySpace = keySpace;
    snapshot.register(this);
  }

  /**
   * The decision of an entry for `key` (allow, deny, ban), or an override's algorithm;
   * `undefined`: the configured algorithm decides. Call once `snapshot.live(now)` is true.
   */
  operated(key: string, cost: number, now: number): Decision | Algorithm | undefined {
    const ops = this.snapshot;
    const match = ops.check(undefined, undefined, key);
    if (match === undefined) return undefined;
    if (match.kind === 'override') return this.#override(match.overrides);
    const limit = this.#algorithm.limit;
    if (match.kind === 'allow') {
      return { allowed: true, limit, remaining: limit, retryAfterMs: 0, resetAfterMs: 0, cost };
    }
    ops.denied(`key:${key}`);
    const until = match.entry.until ?? Number.POSITIVE_INFINITY;
    // A deny never admits (-1, as a cost above the capacity); a ban admits when it ends.
    const left = match.kind === 'deny' ? -1 : Math.max(1, until - now);
    return {
      allowed: false,
      limit,
      remaining: 0,
      retryAfterMs: left,
      resetAfterMs: Math.max(0, left),
      cost,
    };
  }

  /** Peeks `subject`'s key (a `{ key }` subject: the key given to `consume`). */
  async inspect(subject: OperationSubject, now: number): Promise<InspectedKey[]> {
    if (!('key' in subject)) return [];
    const match = this.snapshot.check(undefined, undefined, subject.key);
    const algorithm =
      (match?.kind === 'override' ? this.#override(match.overrides) : undefined) ?? this.#algorithm;
    const d = await this.#keySpace.consume(subject.key, algorithm, 0, now);
    return [
      {
        name: undefined,
        key: `${this.#prefix}${subject.key}`,
        remaining: d.remaining,
        limit: d.limit,
        resetMs: d.resetAfterMs,
      },
    ];
  }

  /** A `{ key }` override (naming no limit) reaches this limiter: refused on a concurrency limit. */
  unoverridable(subject: OperationSubject, name: string | undefined): string | undefined {
    if (name !== undefined || !('key' in subject)) return undefined;
    const a = this.#algorithm;
    return a.kind === 'adaptive'
      ? 'Limit.adaptive'
      : a.concurrent === true
        ? 'concurrency()'
        : undefined;
  }

  #override(overrides: readonly Override[]): Algorithm | undefined {
    // A RateLimiter has no limit name: only overrides naming none apply.
    const o = overrides.find((x) => x.name === undefined);
    if (o === undefined) return undefined;
    if (!this.#overridden.has(o)) this.#overridden.set(o, rescaled(this.#algorithm, o.limit));
    return this.#overridden.get(o);
  }
}
