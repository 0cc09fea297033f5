/**
 * Type test, checked by `tsc -p tsconfig.json --noEmit` at the repository root (not run by
 * jest), like packages/fastify/test/types.check.ts: the global augmentation of
 * @sluice/express makes `req.rateLimit` a `Decision | undefined` on every Express request,
 * and the options are typed.
 */
import type { Decision } from '@sluice/core';
import type { Equal } from '@sluice/test-kit';
import express, { type Request, type RequestHandler } from 'express';
import { type ExpressRateLimitOptions, Limit, rateLimit, throttle } from '../src/index.js';

export function typeTest(): void {
  const app = express();
  const options: ExpressRateLimitOptions = { limit: 'throttle:60,1', headers: 'draft-8' };
  const global: RequestHandler = rateLimit(options);
  app.use(global);
  app.use(rateLimit({ limit: [Limit.perMinute(5), '100/day'] }));
  // @ts-expect-error a limit is a throttle string, a Limit or an array of them
  rateLimit({ limit: 60 });
  app.get('/a', throttle('10/min'), (_req, res) => void res.end());
  // @ts-expect-error throttle takes a limit, not options only
  throttle({ limit: '10/min' });

  app.get('/b', (req, res) => {
    const exact: Equal<typeof req.rateLimit, Decision | undefined> = true;
    const decision: Decision | undefined = req.rateLimit;
    // @ts-expect-error req.rateLimit is undefined when no limiter ran or the request was skipped
    const remaining: number = req.rateLimit.remaining;
    // @ts-expect-error Decision has no `reset` (it is `resetAfterMs`)
    void req.rateLimit?.reset;
    // @ts-expect-error req.rateLimit is a Decision, not a number
    req.rateLimit = 5;
    res.json({ exact, remaining: decision?.remaining ?? remaining });
  });

  // The augmentation is global: any Express Request has it, not only inside app.get.
  const onRequest = (req: Request): number | undefined => req.rateLimit?.retryAfterMs;
  void onRequest;
}
