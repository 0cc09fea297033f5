// The 429 and the rate-limit headers in @fastify/swagger's spec: `openapi: true`.
import swagger from '@fastify/swagger';
import { rateLimit } from '@sluice/fastify';
import Fastify from 'fastify';

const app = Fastify();
// @fastify/swagger first (it collects the routes), then sluice, then the routes.
await app.register(swagger, { openapi: { info: { title: 'My API', version: '1.0.0' } } });
await app.register(rateLimit, { limit: 'throttle:60,1', headers: 'draft-8', openapi: true });

app.get('/items', async () => []); // the global limit: documented
app.post('/login', { config: { rateLimit: 'throttle:5,1' } }, async () => ({ ok: true }));
app.get('/health', { config: { rateLimit: false } }, async () => 'ok'); // not limited: unchanged

await app.ready();
// paths['/items'].get.responses['429']: Retry-After, RateLimit-Policy, RateLimit and the
// JSON body's schema; responses['200'].headers: RateLimit-Policy and RateLimit.
console.log(JSON.stringify(app.swagger(), null, 2));
