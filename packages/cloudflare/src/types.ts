// The few Workers runtime shapes this package uses, written out so it needs no
// `@cloudflare/workers-types` (whose global declarations clash with Node's in a project
// that has both). Structural: Cloudflare's own objects satisfy them.

/**
 * A Durable Object id (`namespace.idFromName(name)`): opaque here.
 * @example
 * ```ts
 * const id: DurableObjectIdLike = env.SLUICE.idFromName('sluice:0');
 * ```
 */
export type DurableObjectIdLike = object;

/**
 * What `namespace.get(id)` returns: a stub whose `fetch` reaches the object.
 * @example
 * ```ts
 * const stub: DurableObjectStubLike = env.SLUICE.get(env.SLUICE.idFromName('sluice:0'));
 * ```
 */
export interface DurableObjectStubLike {
  /** Sends a request to the object (its `fetch` handler answers). */
  fetch(input: string | Request, init?: RequestInit): Promise<Response>;
}

/**
 * A Durable Object namespace binding (`env.SLUICE` with a `[[durable_objects.bindings]]`
 * entry in wrangler.toml), as far as the store uses it.
 * @example
 * ```ts
 * const store = new DurableObjectStore({ namespace: env.SLUICE satisfies DurableObjectNamespaceLike });
 * ```
 */
export interface DurableObjectNamespaceLike {
  /** The id of the object named `name` (the same name, the same object, everywhere). */
  idFromName(name: string): DurableObjectIdLike;
  /** A stub that reaches the object of `id`. */
  get(id: DurableObjectIdLike): DurableObjectStubLike;
}

/**
 * The transactional storage of a Durable Object (`ctx.storage`), as far as the object uses it.
 * @example
 * ```ts
 * const storage: DurableObjectStorageLike = ctx.storage;
 * ```
 */
export interface DurableObjectStorageLike {
  /** The values of `keys` (at most 128) that exist. */
  get(keys: string[]): Promise<Map<string, unknown>>;
  /** Writes `entries` (at most 128), atomically. */
  put(entries: Record<string, unknown>): Promise<void>;
  /** Deletes `keys` (at most 128); resolves with how many existed. */
  delete(keys: string[]): Promise<number>;
  /** Up to `limit` entries in key order, from `start` (inclusive), those whose key begins with `prefix` only. */
  list(options?: {
    start?: string;
    limit?: number;
    prefix?: string;
  }): Promise<Map<string, unknown>>;
  /** When the object's alarm is set to fire (ms since the Unix epoch), or null. */
  getAlarm(): Promise<number | null>;
  /** Sets the object's alarm to fire at `scheduledTime` (ms since the Unix epoch): `alarm()` runs then. */
  setAlarm(scheduledTime: number): Promise<void>;
}

/**
 * The state a Durable Object's constructor receives (`ctx`), as far as the object uses it.
 * @example
 * ```ts
 * const object = new SluiceDurableObject(ctx satisfies DurableObjectStateLike, env);
 * ```
 */
export interface DurableObjectStateLike {
  /** The object's transactional storage. */
  storage: DurableObjectStorageLike;
}

/**
 * A Workers rate-limiting binding (`env.MY_RATE_LIMITER` with a `[[ratelimits]]` entry in
 * wrangler.toml): `limit({ key })` answers whether the key is under the binding's limit
 * at this Cloudflare location.
 * @example
 * ```ts
 * const { success } = await (env.MY_RATE_LIMITER as RateLimitBindingLike).limit({ key: 'k' });
 * ```
 */
export interface RateLimitBindingLike {
  /** Counts one request on `key`; `success` false when the key is over the binding's limit here. */
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/** Whether `value` looks like a Workers KV namespace binding (get, put, delete, list, getWithMetadata). */
export function isKvNamespaceLike(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.get === 'function' &&
    typeof v.put === 'function' &&
    typeof v.delete === 'function' &&
    typeof v.list === 'function' &&
    typeof v.getWithMetadata === 'function'
  );
}

/** Why a KV namespace is refused as a store: the hint of the `SluiceConfigError`. */
export const KV_REFUSAL =
  'this is a Workers KV namespace, and KV is not a counter store: it has no atomic ' +
  'increment and is eventually consistent, so a count is read, then written, and ' +
  'concurrent requests overwrite each other (46 of 50 concurrent increments lost when ' +
  'measured in miniflare); use DurableObjectStore (exact), or WorkersRateLimitBindingStore ' +
  '(approximate)';
