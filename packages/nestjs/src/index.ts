/**
 * @sluice/nestjs: sluice for NestJS on Express and Fastify, a binding to the core's HTTP
 * pipeline: `SluiceModule`, `SluiceGuard`, `@Throttle` / `@SkipThrottle`. Re-exports the
 * core's user-facing names, so `Limit`, `throttles` and `MemoryStore` need no second package.
 *
 * @packageDocumentation
 */
export * from '@sluice/core';
export type { SluiceConfig } from './config.js';
export { defaultRequestResponse } from './config.js';
export { SLUICE_CONFIG } from './constants.js';
export { type ClassOrMethodDecorator, SkipThrottle, Throttle } from './decorators.js';
export { ThrottleException, ThrottleExceptionFilter } from './exception.js';
export { SluiceGuard } from './guard.js';
export { SluiceModule, type SluiceModuleAsyncOptions } from './module.js';
export { SluiceRoutes } from './routes.js';
export type {
  NestRequest,
  NestResponse,
  RequestResponse,
  SluiceModuleOptions,
  ThrottleOptions,
} from './types.js';
