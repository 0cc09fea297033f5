import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import type { HttpVerdict } from '@sluice/core/http';
import { ThrottleException } from './exception.js';
import { SluiceRoutes } from './routes.js';
import type { NestPipeline, NestRequest, NestResponse } from './types.js';

/**
 * Runs `pipelines[i..]` for one request in order, each only if the ones before allowed it;
 * synchronous while every verdict is (a `MemoryStore`).
 * @throws {@link ThrottleException} for the first denial.
 */
function runFrom(
  pipelines: readonly NestPipeline[],
  i: number,
  req: NestRequest,
  res: NestResponse,
): true | Promise<true> {
  for (; i < pipelines.length; i++) {
    const v = pipelines[i]!.handle(req, res);
    if (v instanceof Promise) {
      const next = i + 1;
      return v.then((verdict) => {
        check(verdict);
        return runFrom(pipelines, next, req, res);
      });
    }
    check(v);
  }
  return true;
}

function check(v: HttpVerdict | undefined): void {
  if (v !== undefined && !v.allowed) throw new ThrottleException(v);
}

const getMetadata = (Reflect as unknown as { getMetadata(k: unknown, t: object): unknown })
  .getMetadata;

/** Whether `SluiceGuard` is among the guards `@UseGuards` put on `target` (a class or handler). */
export function guardedBy(target: object): boolean {
  const guards = getMetadata(GUARDS_METADATA, target);
  return Array.isArray(guards) && guards.some((g) => g === SluiceGuard || g instanceof SluiceGuard);
}

/** Runs the limits of the context's handler (see {@link SluiceGuard}). */
function limit(routes: SluiceRoutes, context: ExecutionContext, global: boolean) {
  const cls = context.getClass();
  const handler = context.getHandler();
  const plan = routes.limitsFor(cls, handler);
  if (plan.pipelines.length === 0) return true;
  if (global) {
    plan.local ??= guardedBy(cls) || guardedBy(handler);
    if (plan.local) return true;
  }
  const rr = routes.config.requestResponse(context);
  if (rr === undefined) return true;
  return runFrom(plan.pipelines, 0, rr.req, rr.res);
}

/**
 * The guard that limits a request: the module's global limit (unless the handler or its
 * controller is `@SkipThrottle()`), then each `@Throttle` of the controller and of the
 * handler, keyed by the handler's route pattern. Allowed: sets the rate-limit headers and
 * `req.rateLimit`. Denied: the headers and `Retry-After`, then a {@link ThrottleException}
 * (429 with sluice's JSON body); the handler does not run.
 *
 * Global by default (`SluiceModule.forRoot`). To key by `req.user`, list it after your
 * authentication guard: where `@UseGuards` names it, on a controller or handler, it runs
 * there and the global guard leaves that handler to it:
 *
 * @example
 * `@UseGuards(JwtAuthGuard, SluiceGuard) @Controller('users') class UsersController {}`
 */
export class SluiceGuard implements CanActivate {
  readonly #routes: SluiceRoutes;

  constructor(routes: SluiceRoutes) {
    this.#routes = routes;
  }

  /** Limits the request; throws {@link ThrottleException} when denied. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    return limit(this.#routes, context, false);
  }
}

// Nest's decorators applied as calls: the package needs no decorator compiler setting.
Injectable()(SluiceGuard);
Inject(SluiceRoutes)(SluiceGuard, undefined, 0);

/** `SluiceGuard` registered as `APP_GUARD`: leaves handlers `@UseGuards(SluiceGuard)` names to it. */
export class GlobalSluiceGuard implements CanActivate {
  readonly #routes: SluiceRoutes;

  constructor(routes: SluiceRoutes) {
    this.#routes = routes;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    return limit(this.#routes, context, true);
  }
}
