/**
 * The demo API on Fastify 5 with `@sluice/fastify`: the plugin registered with
 * `global: false` (no limit unless a route asks), and `config: { rateLimit }` per route,
 * the limits being the named limiters of `limits.ts`.
 */
import type { MetricsOption, Store } from '@sluice/core';
import { rateLimit } from '@sluice/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import * as handlers from './handlers.js';
import './limits.js'; // defines the named limiters ('throttle:login', …)
import './plans.js'; // defines 'throttle:plan'

export async function createFastifyApp(
  store: Store,
  metrics: MetricsOption = true,
): Promise<FastifyInstance> {
  const app = Fastify();
  // Options given here (the store) are inherited by every route's config.rateLimit.
  await app.register(rateLimit, { global: false, store, metrics });

  // Public: no config.rateLimit, so no limit.
  app.get('/', async () => handlers.home());

  // 5 per minute and 100 per day per IP.
  app.post('/login', { config: { rateLimit: 'throttle:login' } }, async () => handlers.login());

  // Only failed logins count; 5 a minute per IP, then blocked 15 min (x2 per repeat).
  app.post(
    '/session',
    { config: { rateLimit: { limit: 'throttle:session', skipSuccessfulRequests: true } } },
    async (req, reply) => {
      const { status, body } = handlers.session(req.headers);
      return reply.code(status).send(body);
    },
  );

  // The /api group: one bucket per user, shared by its routes; the report takes 10 from it.
  await app.register(
    async (api) => {
      api.get('/me', { config: { rateLimit: 'throttle:api' } }, async (req) =>
        handlers.me(req.headers),
      );
      api.get('/items', { config: { rateLimit: 'throttle:api' } }, async () => handlers.items());
      api.get('/plan', { config: { rateLimit: 'throttle:plan' } }, async (req) =>
        handlers.plan(req.headers),
      );
      api.get('/report', { config: { rateLimit: 'throttle:report' } }, async (req) =>
        handlers.report(req.headers),
      );
      // At most 2 exports in flight per user: a lease per request, released when it ends.
      api.get('/export', { config: { rateLimit: 'throttle:export' } }, async (req) =>
        handlers.exportData(req.headers),
      );
    },
    { prefix: '/api' },
  );

  return app;
}
