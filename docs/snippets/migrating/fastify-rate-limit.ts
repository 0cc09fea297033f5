import { rateLimit } from '@sluice/fastify';
import Fastify from 'fastify';

const app = Fastify({ trustProxy: '10.0.0.0/8' }); // the load balancers' addresses

// @fastify/rate-limit: register(rateLimit, { max: 100, timeWindow: '1 minute',
//   allowList: ['127.0.0.1'], errorResponseBuilder: (req, ctx) => ({ code: 429, ... }) })
await app.register(rateLimit, {
  limit: '100/min', // max + timeWindow
  algorithm: 'fixed-window', // @fastify/rate-limit's counting; the default would be GCRA
  skip: (req) => req.ip === '127.0.0.1', // allowList
  errorResponseBuilder: (_request, verdict) => ({
    code: 429,
    error: 'Too Many Requests',
    message: `retry in ${verdict.retryAfterSeconds} s`,
  }),
});

// Per route: config.rateLimit takes a limit (or options); false opts out.
app.get('/search', { config: { rateLimit: '10/s' } }, async () => []);
app.get('/health', { config: { rateLimit: false } }, async () => 'ok');

await app.listen({ port: Number(process.env.PORT ?? 3000) });
