import type { Algorithm } from './algorithm.js';
import type { Decision } from './decision.js';
import { SluiceConfigError } from './errors.js';
import { MemoryStore } from './memory-store.js';
import type { Store } from './store.js';

/**
 * What a limiter does while its store fails (errors, or answers later than its timeout):
 *
 * - `'insurance'` (default): decide with an in-process {@link MemoryStore} until the store
 *   answers again (rate-limiter-flexible's "insurance limiter"); logs once per outage.
 * - `'allow'`: fail open: admit every request (`remaining` = limit).
 * - `'deny'`: fail closed: deny every request with `retryAfterMs` = {@link DENY_RETRY_MS}.
 */
export type StoreErrorPolicy = 'insurance' | 'allow' | 'deny';

/** `retryAfterMs` of the denials `onStoreError: 'deny'` gives: 1000 ms. */
export const DENY_RETRY_MS = 1000;

/** Where failure notices go: `console` by default. */
export interface StoreFailureLogger {
  warn(message: string, error?: unknown): void;
}

/**
 * Wraps a {@link Store} with a {@link StoreErrorPolicy}: no store failure ever reaches the
 * caller as a rejection. Each call still tries the store first, so the limiter uses it
 * again as soon as it answers (no rebuild). Logs once when an outage starts and once when
 * it ends.
 */
export class FailSafeStore implements Store {
  readonly #store: Store;
  readonly #policy: StoreErrorPolicy;
  readonly #logger: StoreFailureLogger;
  #insurance: MemoryStore | undefined;
  #failing = false;

  constructor(store: Store, policy: StoreErrorPolicy, logger: StoreFailureLogger) {
    this.#store = store;
    this.#policy = policy;
    this.#logger = logger;
  }

  /** Whether the last call to the wrapped store failed. */
  get failing(): boolean {
    return this.#failing;
  }

  consume(key: string, algorithm: Algorithm, cost: number, nowMs: number): Promise<Decision> {
    let result: Decision | Promise<Decision>;
    try {
      result = this.#store.consume(key, algorithm, cost, nowMs);
    } catch (error) {
      return Promise.resolve(this.#fallback(error, key, algorithm, cost, nowMs));
    }
    return Promise.resolve(result).then(
      (decision) => {
        if (this.#failing) this.#recovered();
        return decision;
      },
      (error: unknown) => this.#fallback(error, key, algorithm, cost, nowMs),
    );
  }

  async reset(key: string): Promise<void> {
    this.#insurance?.reset(key);
    try {
      await this.#store.reset(key);
    } catch (error) {
      this.#failed(error);
    }
  }

  #fallback(
    error: unknown,
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
  ): Decision {
    this.#failed(error);
    const limit = algorithm.limit;
    if (this.#policy === 'allow') {
      return { allowed: true, limit, remaining: limit, retryAfterMs: 0, resetAfterMs: 0, cost };
    }
    if (this.#policy === 'deny') {
      return {
        allowed: false,
        limit,
        remaining: 0,
        retryAfterMs: DENY_RETRY_MS,
        resetAfterMs: DENY_RETRY_MS,
        cost,
      };
    }
    this.#insurance ??= new MemoryStore();
    return this.#insurance.consume(key, algorithm, cost, nowMs);
  }

  #failed(error: unknown): void {
    if (this.#failing) return;
    this.#failing = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.#logger.warn(
      `sluice: store failing (${reason}); onStoreError '${this.#policy}' decides until it answers`,
      error,
    );
  }

  #recovered(): void {
    this.#failing = false;
    this.#logger.warn('sluice: store answering again');
  }
}

/** A limiter's store once its options are checked (see {@link guardedStore}). */
export interface GuardedStore {
  /** Where decisions go: `origin` behind a {@link FailSafeStore}, unless a {@link MemoryStore}. */
  store: Store;
  /** The user's store itself. */
  origin: Store;
}

/**
 * Checks a limiter's `store`, `onStoreError` and `logger` options (defaults already applied)
 * and wraps a store that can fail in a {@link FailSafeStore} with them.
 *
 * @param requireReset - whether the store must have `reset` (a limiter that calls it).
 * @throws {@link SluiceConfigError} naming `store`, `onStoreError` or `logger`.
 */
export function guardedStore(
  store: unknown,
  onStoreError: unknown,
  logger: unknown,
  requireReset: boolean,
): GuardedStore {
  const s = store as Store;
  if (
    s === null ||
    typeof s !== 'object' ||
    typeof s.consume !== 'function' ||
    (requireReset && typeof s.reset !== 'function')
  ) {
    throw new SluiceConfigError('store', store, 'a Store (MemoryStore, RedisStore)');
  }
  if (onStoreError !== 'insurance' && onStoreError !== 'allow' && onStoreError !== 'deny') {
    throw new SluiceConfigError('onStoreError', onStoreError, "'insurance', 'allow' or 'deny'");
  }
  const l = logger as StoreFailureLogger;
  if (l === null || typeof l !== 'object' || typeof l.warn !== 'function') {
    throw new SluiceConfigError('logger', logger, 'an object with warn(message)');
  }
  return { store: s instanceof MemoryStore ? s : new FailSafeStore(s, onStoreError, l), origin: s };
}
