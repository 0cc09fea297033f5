/**
 * Type test, checked by `tsc -p tsconfig.json --noEmit` at the repository root (not run by
 * jest), like packages/fastify/test/types.check.ts: the `DefaultState` augmentation of
 * @sluice/koa makes `ctx.state.rateLimit` a `Decision | undefined`, in Koa middleware and
 * in @koa/router routes, and the options are typed.
 */
import Router from '@koa/router';
import type { Decision } from '@sluice/core';
import type { Equal } from '@sluice/test-kit';
import Koa, { type Middleware } from 'koa';
import { type KoaRateLimitOptions, Limit, rateLimit, throttle } from '../src/index.js';

export function typeTest(): void {
  const app = new Koa();
  const options: KoaRateLimitOptions = { limit: 'throttle:60,1', headers: 'draft-8' };
  const global: Middleware = rateLimit(options);
  app.use(global);
  app.use(rateLimit({ limit: [Limit.perMinute(5), '100/day'] }));
  // @ts-expect-error a limit is a throttle string, a Limit or an array of them
  rateLimit({ limit: 60 });
  // @ts-expect-error throttle takes a limit, not options only
  throttle({ limit: '10/min' });

  app.use((ctx) => {
    const exact: Equal<typeof ctx.state.rateLimit, Decision | undefined> = true;
    const decision: Decision | undefined = ctx.state.rateLimit;
    // @ts-expect-error ctx.state.rateLimit is undefined when no limiter ran or it was skipped
    const remaining: number = ctx.state.rateLimit.remaining;
    // @ts-expect-error Decision has no `reset` (it is `resetAfterMs`)
    void ctx.state.rateLimit?.reset;
    // @ts-expect-error ctx.state.rateLimit is a Decision, not a number
    ctx.state.rateLimit = 5;
    ctx.body = { exact, remaining: decision?.remaining ?? remaining };
  });

  const router = new Router();
  router.get('/a', throttle('10/min'), (ctx) => {
    const exact: Equal<typeof ctx.state.rateLimit, Decision | undefined> = true;
    ctx.body = { exact, remaining: ctx.state.rateLimit?.remaining };
  });
  app.use(router.routes());
}
