import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { HttpVerdict } from '@sluice/core';
import type { HttpPipeline } from '@sluice/core/http';
import { ThrottleException } from './exception.js';
import { SluiceRoutes } from './routes.js';
import type { NestRequest, NestResponse } from './types.js';

type Pipeline = HttpPipeline<NestRequest, NestResponse>;

/**
 * Runs `pipelines[i..]` for one request in order, each only if the ones before allowed it;
 * synchronous while every verdict is (a `MemoryStore`).
 * @throws {@link ThrottleException} for the first denial.
 */
function runFrom(
  pipelines: readonly Pipeline[],
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

/**
 * The guard that limits a request: the module's global limit (unless the handler or its
 * controller is `@SkipThrottle()`), then each `@Throttle` of the controller and of the
 * handler, keyed by the handler's route pattern. Allowed: sets the rate-limit headers and
 * `req.rateLimit`. Denied: the headers and `Retry-After`, then a {@link ThrottleException}
 * (429 with sluice's JSON body); the handler does not run.
 *
 * Global by default (`SluiceModule.forRoot`); with `global: false`, list it after your
 * authentication guard so limits key by `req.user`:
 *
 * @example
 * `@UseGuards(JwtAuthGuard, SluiceGuard) @Controller('users') class UsersController {}`
 */
@Injectable()
export class SluiceGuard implements CanActivate {
  readonly #routes: SluiceRoutes;

  constructor(@Inject(SluiceRoutes) routes: SluiceRoutes) {
    this.#routes = routes;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const routes = this.#routes;
    const plan = routes.planFor(context.getClass(), context.getHandler());
    if (plan.pipelines.length === 0) return true;
    const rr = routes.config.requestResponse(context);
    if (rr === undefined) return true;
    return runFrom(plan.pipelines, 0, rr.req, rr.res);
  }
}
