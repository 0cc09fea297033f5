import { serve } from '@hono/node-server';
import { createFetchLimiter, ip, limitFetch } from '@sluice/fetch';

// The client IP from the runtime itself: ip.node() here (the socket, through
// @hono/node-server), ip.bun() with Bun.serve, ip.deno() with Deno.serve, ip.cloudflare()
// on Workers. `env` is the handler's second argument, which the resolver reads.
const clientIp = ip.node();

// POST /login: 5 per minute per client, on top of the global limit below.
const loginLimit = createFetchLimiter({ limit: 'throttle:5,1', ip: clientIp });

async function handler(req: Request, env: unknown): Promise<Response> {
  const { pathname } = new URL(req.url);
  if (req.method === 'POST' && pathname === '/login') {
    const verdict = await loginLimit.check(req, { route: '/login', env });
    if (!verdict.allowed) return verdict.response!; // the 429
    return verdict.apply(Response.json({ ok: true, remaining: verdict.decision?.remaining }));
  }
  return Response.json({ hello: 'world' });
}

// Every request: 60 per minute per client.
const app = limitFetch(handler, { limit: 'throttle:60,1', ip: clientIp });

const port = Number(process.env.PORT ?? 3000);
serve({ fetch: app, port, hostname: '127.0.0.1' }, () => {
  console.log(`listening on http://127.0.0.1:${port}`);
});
