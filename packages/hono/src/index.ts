/**
 * @sluice/hono: sluice's Hono middleware, on every runtime Hono runs on (Node, Bun, Deno,
 * Cloudflare Workers): `rateLimit` (global), `throttle` (per route), `c.get('rateLimit')`.
 * Built on @sluice/fetch's binding to the core's HTTP pipeline. Re-exports the core's
 * user-facing names and the IP resolvers.
 *
 * @packageDocumentation
 */
// The curated names of @sluice/core: one list, in the core (reviewed in
// packages/core/test/exports/index.txt); this package's own export list shows every change.
export * from '@sluice/core';
export { markSkipThrottle } from '@sluice/core/http';
export type { FetchVerdict, ForwardedForOptions, IpResolver } from '@sluice/fetch';
export { ip } from '@sluice/fetch';
export type { HonoRoutes } from './assert-limited.js';
export { assertRateLimited } from './assert-limited.js';
export type { HonoRateLimitOptions, RateLimitEnv, RateLimitVariables } from './rate-limit.js';
export { rateLimit, throttle } from './rate-limit.js';
