import { createFetchLimiter, ip, Limit } from '@sluice/fetch';
import { RedisStore } from '@sluice/redis';
import { Redis } from '@upstash/redis';

// Before (@upstash/ratelimit):
//   const ratelimit = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(10, '10 s') });
//   const { success } = await ratelimit.limit(identifier);
// After: the same check, with the 429, the headers and the client IP handled, counted in
// the same Upstash database through the same client.
const limiter = createFetchLimiter({
  limit: Limit.perSecond(10, 10).named('api'), // 10 per 10 seconds
  algorithm: 'sliding-window',
  ip: ip.vercel(),
  store: new RedisStore({ client: Redis.fromEnv() }),
});

export async function GET(req: Request): Promise<Response> {
  const verdict = await limiter.check(req);
  if (!verdict.allowed) return verdict.response!;
  return verdict.apply(Response.json({ ok: true }));
}
