// #region worker
import { createFetchLimiter, ip, Limit } from '@sluice/fetch';
import { RedisStore } from '@sluice/redis';
// On Workers: `@upstash/redis/cloudflare`; on Vercel, Node, Bun and Deno: `@upstash/redis`.
import { Redis } from '@upstash/redis/cloudflare';

interface Env {
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
}

let limiter: ReturnType<typeof createFetchLimiter> | undefined;

export default {
  async fetch(req: Request, env: Env, ctx: { waitUntil(p: Promise<unknown>): void }) {
    // Built on the first request: Workers read `env` per request.
    limiter ??= createFetchLimiter({
      limit: Limit.perMinute(60).named('api'),
      ip: ip.cloudflare(),
      store: new RedisStore({
        client: new Redis({
          url: env.UPSTASH_REDIS_REST_URL,
          token: env.UPSTASH_REDIS_REST_TOKEN,
        }),
      }),
    });
    const verdict = await limiter.check(req, { waitUntil: (p) => ctx.waitUntil(p) });
    if (!verdict.allowed) return verdict.response!;
    return verdict.apply(Response.json({ ok: true }));
  },
};
// #endregion worker
