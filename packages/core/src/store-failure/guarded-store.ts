import { notAStoreHint, SluiceConfigError } from '../common/errors.js';
import { MemoryStore } from '../stores/memory-store.js';
import type { Store } from '../stores/store.js';
import { checkBreakerOptions } from './circuit-breaker.js';
import { checkFailureMode } from './fail-safe-options.js';
import { checkOverLimitOptions, type OverLimitCacheOptions } from './over-limit-cache.js';
import { FailSafeStore } from './store-failure.js';

/** A limiter's store once its options are checked (see {@link guardedStore}). */
export interface GuardedStore {
  /** Where decisions go: `userStore` behind a {@link FailSafeStore}, unless a {@link MemoryStore}. */
  store: Store;
  /** The user's store itself. */
  userStore: Store;
}

/** The options {@link guardedStore} checks, as the user gave them (defaults applied). */
export interface GuardedStoreOptions {
  readonly store: unknown;
  readonly onStoreError: unknown;
  readonly logger: unknown;
  /** Whether the store must have `reset` (a limiter that calls it). */
  readonly requireReset: boolean;
  readonly breaker?: unknown;
  readonly overLimit?: unknown;
}

/**
 * Checks a limiter's `store`, `onStoreError`, `logger` and `breaker` options (defaults
 * already applied, `breaker` may be undefined) and wraps a store that can fail in a
 * {@link FailSafeStore} with them.
 *
 * @param requireReset - whether the store must have `reset` (a limiter that calls it).
 * @param breaker - {@link CircuitBreakerOptions} (`cooldownMs` default 1000 ms, `clock`
 *   default `performance.now`); undefined for the defaults.
 * @param overLimit - the over-limit cache ({@link OverLimitCacheOptions}, or `false`);
 *   undefined for the default (10 000 keys).
 * @throws {@link SluiceConfigError} naming `store`, `onStoreError`, `logger`, `breaker`,
 *   `breaker.cooldownMs`, `breaker.clock`, `overLimitCache` or `overLimitCache.maxKeys`.
 *
 * @example
 * ```ts
 * const { store } = guardedStore({
 *   store: redisStore, onStoreError: 'deny', logger: console, requireReset: true,
 *   breaker: { cooldownMs: 2000 },
 * });
 * ```
 */
export function guardedStore({
  store,
  onStoreError,
  logger,
  requireReset,
  breaker,
  overLimit,
}: GuardedStoreOptions): GuardedStore {
  const s = store as Store;
  if (
    s === null ||
    typeof s !== 'object' ||
    typeof s.consume !== 'function' ||
    (requireReset && typeof s.reset !== 'function')
  ) {
    throw new SluiceConfigError('store', store, 'a Store (MemoryStore, RedisStore)', {
      hint: notAStoreHint(store),
    });
  }
  const mode = checkFailureMode(onStoreError, logger);
  const options = checkBreakerOptions(breaker);
  const cache = overLimit as OverLimitCacheOptions | false | undefined;
  checkOverLimitOptions(cache);
  return {
    store:
      s instanceof MemoryStore
        ? s
        : new FailSafeStore({ store: s, ...mode, breaker: options, overLimitCache: cache }),
    userStore: s,
  };
}
