import { rateLimit } from '@sluice/fastify';
import Fastify from 'fastify';

const app = Fastify();

// Every route registered after the plugin: 60 requests per minute per client
// (request.user?.id when there is one, else the client IP).
await app.register(rateLimit, { limit: 'throttle:60,1' });

app.get('/', async () => ({ hello: 'world' }));

// And POST /login: 5 per minute per client on top. The 6th quick attempt gets a 429.
app.post('/login', { config: { rateLimit: 'throttle:5,1' } }, async (request) => ({
  ok: true,
  remaining: request.rateLimit?.remaining,
}));

const port = Number(process.env.PORT ?? 3000);
await app.listen({ port, host: '127.0.0.1' });
console.log(`listening on http://127.0.0.1:${port}`);
