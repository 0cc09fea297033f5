import { notAStoreHint, SluiceConfigError } from '../common/errors.js';
import { checkOptionNames, optionNames } from '../common/known-options.js';
import type { Store } from '../stores/store.js';
import { type CircuitBreakerOptions, checkBreakerOptions } from './circuit-breaker.js';
import { checkOverLimitOptions, type OverLimitCacheOptions } from './over-limit-cache.js';

/**
 * What a limiter does while its store fails (errors, or answers later than its timeout):
 *
 * - `'insurance'` (default): decide with an in-process {@link MemoryStore} until the store
 *   answers again (rate-limiter-flexible's "insurance limiter"); logs once per outage.
 * - `'allow'`: fail open: admit every request (`remaining` = limit).
 * - `'deny'`: fail closed: deny every request with `retryAfterMs` = {@link DENY_RETRY_MS}.
 *
 * A call answered by the policy after a timeout charges nothing on a stalled Redis (each
 * script carries its deadline); but when the reply was late in transit (the script ran in
 * time, the reply was held up on the way), or the call was given up when its node's breaker
 * opened and the node answered before the call's own deadline, it was charged all the same
 * (e.g. a request denied under `'deny'` that used one unit). A key whose state its
 * algorithm cannot read (another algorithm's value) is decided by the policy too, without
 * counting as a store failure.
 */
export type StoreErrorPolicy = 'insurance' | 'allow' | 'deny';

/** Where failure notices go: `console` by default. */
export interface StoreFailureLogger {
  /**
   * Called once when a store starts failing, once when it answers again, and once per
   * algorithm whose key holds state it cannot read. One line each, describing the error by
   * kind: no key text, no user id, no script source (the error object is never passed).
   */
  warn(message: string, error?: unknown): void;
}

/** What a `FailSafeStore` is made of; the names are the limiters' options of the same meaning. */
export interface FailSafeStoreOptions {
  /** The store wrapped: its failures and timeouts are decided by `onStoreError`. */
  store: Store;
  /**
   * What to do while the store fails (the failure mode, see {@link StoreErrorPolicy}).
   * @default 'insurance'
   */
  onStoreError?: StoreErrorPolicy;
  /**
   * Where failure notices go.
   * @default console
   */
  logger?: StoreFailureLogger;
  /**
   * The circuit breaker per failure domain.
   * @default { cooldownMs: 1000 }
   */
  breaker?: CircuitBreakerOptions;
  /**
   * Keys the store denied, remembered until their retry time ({@link OverLimitCacheOptions});
   * `false` for none.
   * @default { maxKeys: 10_000 }
   */
  overLimitCache?: OverLimitCacheOptions | false;
}

const FAIL_SAFE_OPTION_NAMES = optionNames<FailSafeStoreOptions>({
  store: true,
  onStoreError: true,
  logger: true,
  breaker: true,
  overLimitCache: true,
});

/** {@link FailSafeStoreOptions}, checked, with the defaults applied. */
export interface FailSafeConfig {
  store: Store;
  onStoreError: StoreErrorPolicy;
  logger: StoreFailureLogger;
  breaker: CircuitBreakerOptions | undefined;
  overLimitCache: OverLimitCacheOptions | false | undefined;
}

/**
 * Checks the `onStoreError` and `logger` options (shared by `FailSafeStore` and the limiters).
 * @throws {@link SluiceConfigError} naming `onStoreError` or `logger`.
 */
export function checkFailureMode(
  onStoreError: unknown,
  logger: unknown,
): { onStoreError: StoreErrorPolicy; logger: StoreFailureLogger } {
  if (onStoreError !== 'insurance' && onStoreError !== 'allow' && onStoreError !== 'deny') {
    throw new SluiceConfigError('onStoreError', onStoreError, "'insurance', 'allow' or 'deny'");
  }
  const l = logger as StoreFailureLogger;
  if (l === null || typeof l !== 'object' || typeof l.warn !== 'function') {
    throw new SluiceConfigError('logger', logger, 'an object with warn(message)');
  }
  return { onStoreError, logger: l };
}

/**
 * Parses `new FailSafeStore(options)`'s options.
 * @throws {@link SluiceConfigError} naming `options`, `store`, `onStoreError`, `logger`, a
 *   `breaker` or `overLimitCache` field, or every unknown option name.
 */
export function parseFailSafeOptions(options: FailSafeStoreOptions): FailSafeConfig {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an options object { store, onStoreError? }');
  }
  checkOptionNames(options, FAIL_SAFE_OPTION_NAMES, 'new FailSafeStore()');
  const store = options.store;
  if (store === null || typeof store !== 'object' || typeof store.consume !== 'function') {
    throw new SluiceConfigError('store', store, 'a Store (MemoryStore, RedisStore)', {
      hint: notAStoreHint(store),
    });
  }
  const { onStoreError, logger } = checkFailureMode(
    options.onStoreError ?? 'insurance',
    options.logger ?? console,
  );
  checkBreakerOptions(options.breaker);
  checkOverLimitOptions(options.overLimitCache);
  return {
    store,
    onStoreError,
    logger,
    breaker: options.breaker,
    overLimitCache: options.overLimitCache,
  };
}
