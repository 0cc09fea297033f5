/**
 * The demo API on Express 5 with `@sluice/express`: `throttle(limit, options)` on each
 * limited route, the limits being the named limiters of `limits.ts`.
 */
import type { MetricsOption, Store } from '@sluice/core';
import { throttle } from '@sluice/express';
import express from 'express';
import * as handlers from './handlers.js';
import './limits.js'; // defines the named limiters ('throttle:login', …)
import './plans.js'; // defines 'throttle:plan'

export function createExpressApp(store: Store, metrics: MetricsOption = true): express.Express {
  const app = express();

  // Public: no limiter on this route.
  app.get('/', (_req, res) => {
    res.json(handlers.home());
  });

  // 5 per minute and 100 per day per IP.
  app.post('/login', throttle('throttle:login', { store, metrics }), (_req, res) => {
    res.json(handlers.login());
  });

  // Only failed logins count; 5 a minute per IP, then blocked 15 min (x2 per repeat).
  app.post(
    '/session',
    throttle('throttle:session', { store, metrics, skipSuccessfulRequests: true }),
    (req, res) => {
      const { status, body } = handlers.session(req.headers);
      res.status(status).json(body);
    },
  );

  // The /api group: one bucket per user, shared by its routes; the report takes 10 from it.
  const api = express.Router();
  api.get('/me', throttle('throttle:api', { store, metrics }), (req, res) => {
    res.json(handlers.me(req.headers));
  });
  api.get('/items', throttle('throttle:api', { store, metrics }), (_req, res) => {
    res.json(handlers.items());
  });
  api.get('/report', throttle('throttle:report', { store, metrics }), (req, res) => {
    res.json(handlers.report(req.headers));
  });
  // At most 2 exports in flight per user: a lease per request, released when it ends.
  api.get('/export', throttle('throttle:export', { store, metrics }), async (req, res) => {
    res.json(await handlers.exportData(req.headers));
  });
  // The tenant's plan, looked up asynchronously (cached): its per-minute and monthly quotas.
  api.get('/plan', throttle('throttle:plan', { store, metrics }), (req, res) => {
    res.json(handlers.plan(req.headers));
  });
  app.use('/api', api);

  return app;
}
