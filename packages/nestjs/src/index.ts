/**
 * @sluice/nestjs: sluice for NestJS on Express and Fastify, a binding to the core's HTTP
 * pipeline: `SluiceModule`, `SluiceGuard`, `@Throttle` / `@SkipThrottle`. Re-exports the
 * core's user-facing names, so `Limit`, `throttles` and `MemoryStore` need no second package.
 *
 * @packageDocumentation
 */
// The curated names of @sluice/core (its src/index.ts, reviewed in packages/core/test/exports/
// index.txt): one list, kept in the core; this package's export list shows each change too.
// (Nest's own SkipThrottle, a class and method decorator, replaces the core's.)
export * from '@sluice/core';
// Nest's own names: the module, the guard, the decorators, the 429 and the options. The
// plumbing (the config token, the route table, the context reader) stays internal.
export { SkipThrottle, Throttle } from './decorators.js';
export { ThrottleException, ThrottleExceptionFilter } from './exception.js';
export { SluiceGuard } from './guard.js';
export { SluiceModule, type SluiceModuleAsyncOptions } from './module.js';
export { addSluiceApiResponses } from './openapi.js';
export type { RequestResponse, SluiceModuleOptions, ThrottleOptions } from './types.js';
