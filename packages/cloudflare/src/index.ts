/**
 * `@sluice/cloudflare`: sluice's stores for Cloudflare Workers. {@link DurableObjectStore}
 * with {@link SluiceDurableObject} decides exactly (sluice's own algorithms on a Durable
 * Object's storage, one object per key shard); {@link WorkersRateLimitBindingStore} uses
 * the Workers rate-limiting binding, only as an explicitly approximate store. Workers KV is
 * refused as a store (it loses concurrent increments). Use it with `@sluice/hono` or
 * `@sluice/fetch`.
 *
 * @packageDocumentation
 */

export type { WorkersRateLimitBindingStoreOptions } from './binding-store.js';
export { WorkersRateLimitBindingStore } from './binding-store.js';
export { SluiceDurableObject } from './durable-object.js';
export type { DurableObjectStoreOptions } from './durable-object-store.js';
export { DurableObjectStore } from './durable-object-store.js';
export type {
  DurableObjectIdLike,
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStorageLike,
  DurableObjectStubLike,
  RateLimitBindingLike,
} from './types.js';
