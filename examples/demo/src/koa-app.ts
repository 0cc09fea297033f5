/**
 * The demo API on Koa 3 with `@sluice/koa` and @koa/router: `throttle(limit, options)` on
 * each limited route, the limits being the named limiters of `limits.ts`.
 */
import Router from '@koa/router';
import type { MetricsOption, Store } from '@sluice/core';
import { throttle } from '@sluice/koa';
import Koa from 'koa';
import * as handlers from './handlers.js';
import './limits.js'; // defines the named limiters ('throttle:login', …)
import './plans.js'; // defines 'throttle:plan'

export function createKoaApp(store: Store, metrics: MetricsOption = true): Koa {
  const app = new Koa();
  const router = new Router();

  // Public: no limiter on this route.
  router.get('/', (ctx) => {
    ctx.body = handlers.home();
  });

  // 5 per minute and 100 per day per IP.
  router.post('/login', throttle('throttle:login', { store, metrics }), (ctx) => {
    ctx.body = handlers.login();
  });

  // Only failed logins count; 5 a minute per IP, then blocked 15 min (x2 per repeat).
  router.post(
    '/session',
    throttle('throttle:session', { store, metrics, skipSuccessfulRequests: true }),
    (ctx) => {
      const { status, body } = handlers.session(ctx.headers);
      ctx.status = status;
      ctx.body = body;
    },
  );

  // The /api group: one bucket per user, shared by its routes; the report takes 10 from it.
  const api = new Router({ prefix: '/api' });
  api.get('/me', throttle('throttle:api', { store, metrics }), (ctx) => {
    ctx.body = handlers.me(ctx.headers);
  });
  api.get('/items', throttle('throttle:api', { store, metrics }), (ctx) => {
    ctx.body = handlers.items();
  });
  api.get('/plan', throttle('throttle:plan', { store, metrics }), (ctx) => {
    ctx.body = handlers.plan(ctx.headers);
  });
  api.get('/report', throttle('throttle:report', { store, metrics }), (ctx) => {
    ctx.body = handlers.report(ctx.headers);
  });

  // At most 2 exports in flight per user: a lease per request, released when it ends.
  api.get('/export', throttle('throttle:export', { store, metrics }), async (ctx) => {
    ctx.body = await handlers.exportData(ctx.headers);
  });

  app.use(router.routes()).use(router.allowedMethods());
  app.use(api.routes()).use(api.allowedMethods());
  return app;
}
