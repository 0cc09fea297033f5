import { Limit, rateLimit } from '@sluice/fastify';
import Fastify from 'fastify';

const app = Fastify({ trustProxy: true });
await app.register(rateLimit, { global: false });

app.post(
  '/login',
  {
    config: {
      rateLimit: {
        // Only failed logins count; a 6th failure in a minute blocks the IP for 15 min,
        // 30 min the next time, up to a day.
        limit: Limit.perMinute(5).blockFor('15m', { backoff: 2, maxBlock: '24h' }),
        skipSuccessfulRequests: true,
      },
    },
  },
  async (request, reply) => {
    const { password } = (request.body ?? {}) as { password?: string };
    if (password === 'correct horse') return { ok: true };
    return reply.code(401).send({ ok: false });
  },
);

await app.listen({ port: 3000 });
