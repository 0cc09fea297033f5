/**
 * Type test, checked by `tsc -p tsconfig.json --noEmit` at the repository root (not run by
 * jest): the declaration merging of @sluice/fastify makes `config.rateLimit`,
 * `request.rateLimit` and `app.rateLimit()` typed.
 */
import { type Decision, Limit } from '@sluice/core';
import Fastify, { type onRequestHookHandler } from 'fastify';
import { type FastifyRateLimitOptions, type RouteRateLimit, rateLimit } from '../src/index.js';

export async function typeTest(): Promise<void> {
  const app = Fastify();
  const options: FastifyRateLimitOptions = { limit: 'throttle:60,1', global: true };
  await app.register(rateLimit, options);
  await app.register(rateLimit, { limit: [Limit.perMinute(5), '100/day'], headers: 'draft-8' });
  // @ts-expect-error a limit is a throttle string, a Limit or an array of them
  await app.register(rateLimit, { limit: 60 });

  const handler = async () => 'ok';
  app.get('/a', { config: { rateLimit: 'throttle:10,1' } }, handler);
  app.get('/b', { config: { rateLimit: false } }, handler);
  app.get('/c', { config: { rateLimit: Limit.perSecond(3) } }, handler);
  app.get('/d', { config: { rateLimit: ['throttle:10,1', Limit.perDay(1000)] } }, handler);
  app.get(
    '/e',
    {
      config: {
        rateLimit: {
          limit: 'throttle:api',
          statusCode: 503,
          errorResponseBuilder: (request, verdict) => ({ url: request.url, s: verdict.statusCode }),
        },
      },
    },
    handler,
  );
  // Other rate limiters' option names are compile errors; any other typo is a SluiceConfigError
  // when the route is registered (Fastify infers route config types, see RouteRateLimit).
  // @ts-expect-error `max` is @fastify/rate-limit's: write limit: '100/min'
  app.get('/m', { config: { rateLimit: { max: 100, timeWindow: '1 minute' } } }, handler);
  // @ts-expect-error `windowMs` is express-rate-limit's
  app.get('/w', { config: { rateLimit: { limit: '5/s', windowMs: 1000 } } }, handler);
  // @ts-expect-error `keyGenerator` is the peers' name for `key`
  app.get('/kg', { config: { rateLimit: { keyGenerator: () => 'k' } } }, handler);
  // @ts-expect-error 42 is not a RouteRateLimit
  app.get('/f', { config: { rateLimit: 42 } }, handler);
  // @ts-expect-error true is not a RouteRateLimit (false opts out; the global limit is the default)
  app.get('/g', { config: { rateLimit: true } }, handler);

  const hook: onRequestHookHandler = app.rateLimit('throttle:api');
  app.get('/i', { onRequest: hook }, handler);
  app.get('/j', { preHandler: app.rateLimit({ limit: '10/s', headers: false }) }, handler);
  // @ts-expect-error app.rateLimit takes no `false`
  app.rateLimit(false);

  app.get('/k', async (request) => {
    const decision: Decision | undefined = request.rateLimit;
    return { remaining: decision?.remaining };
  });

  const route: RouteRateLimit = '60/min';
  void route;
}
