/**
 * The demo API on Express 5 with `@sluice/express`: `throttle(limit, options)` on each
 * limited route, the limits being the named limiters of `limits.ts`.
 */
import type { MetricsOption, Store } from '@sluice/core';
import { throttle } from '@sluice/express';
import express from 'express';
import * as handlers from './handlers.js';
import './limits.js'; // defines 'throttle:login', 'throttle:api', 'throttle:report'

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
  app.use('/api', api);

  return app;
}
