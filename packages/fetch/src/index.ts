/**
 * @sluice/fetch: sluice for `Request → Response` servers (Bun.serve, Deno.serve,
 * Cloudflare Workers, Next.js route handlers and `proxy.ts`, h3, Elysia): `limitFetch`,
 * `createFetchLimiter` and the client-IP resolvers of each runtime (`ip`). A binding to the
 * core's HTTP pipeline, so a request is limited with the same meaning as on Express.
 * Re-exports the core's user-facing names.
 *
 * @packageDocumentation
 */
// The curated names of @sluice/core: one list, in the core (reviewed in
// packages/core/test/exports/index.txt); this package's own export list shows every change.
export * from '@sluice/core';
export type { FetchCheckInput, FetchVerdict } from './fetch-pipeline.js';
// For adapters built on this one (@sluice/hono): the pipeline with options parsed once.
export { FetchPipeline } from './fetch-pipeline.js';
export type { ForwardedForOptions, IpResolver } from './ip.js';
export { ip } from './ip.js';
export type { LimitFetchOptions } from './limit-fetch.js';
export { limitFetch } from './limit-fetch.js';
export type { FetchLimiter, FetchLimitOptions } from './limiter.js';
export { createFetchLimiter, fetchPipeline } from './limiter.js';
export type { WithRateLimitOptions } from './next.js';
export { withRateLimit } from './next.js';
