/**
 * @sluice/fetch: sluice for `Request → Response` servers (Bun.serve, Deno.serve,
 * Cloudflare Workers, Next.js route handlers and `proxy.ts`, h3, Elysia): `limitFetch`,
 * `createFetchLimiter` and the client-IP resolvers of each runtime (`ip`). A binding to the
 * core's HTTP pipeline, so a request is limited with the same meaning as on Express.
 * Re-exports the core's user-facing names.
 *
 * @packageDocumentation
 */
export type {
  Decision,
  HttpLimitOptions,
  LimitInput,
  MemoryStoreOptions,
  Store,
} from '@sluice/core';
export {
  Limit,
  MemoryStore,
  SluiceConfigError,
  ThrottleRegistry,
  throttles,
} from '@sluice/core';
export type { FetchRequestState } from './binding.js';
export type { FetchCheckInput, FetchVerdict } from './fetch-pipeline.js';
export type { ForwardedForOptions, IpResolver } from './ip.js';
export { ip } from './ip.js';
export type { LimitFetchOptions } from './limit-fetch.js';
export { limitFetch } from './limit-fetch.js';
export type { FetchLimiter, FetchLimitOptions } from './limiter.js';
export { createFetchLimiter } from './limiter.js';
