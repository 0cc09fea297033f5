import { serve } from '@hono/node-server';
import { type RateLimitEnv, rateLimit, throttle } from '@sluice/hono';
import { Hono } from 'hono';

const app = new Hono<RateLimitEnv>();

// Every request after this middleware: 60 per minute per client (c.get('user')?.id when
// there is one, else the address of the connection, from the runtime itself).
app.use(rateLimit({ limit: 'throttle:60,1' }));

app.get('/', (c) => c.json({ hello: 'world' }));

// And POST /login: 5 per minute per client on top. The 6th quick attempt gets a 429.
app.post('/login', throttle('throttle:5,1'), (c) =>
  c.json({ ok: true, remaining: c.get('rateLimit').remaining }),
);

// On Node through @hono/node-server; on Bun, Deno and Workers `export default app` instead.
const port = Number(process.env.PORT ?? 3000);
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => {
  console.log(`listening on http://127.0.0.1:${port}`);
});
