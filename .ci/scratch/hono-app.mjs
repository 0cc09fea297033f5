// An ESM Hono app on Node (@hono/node-server) on the installed tarballs: GET /users/1 twice
// under a 1-per-minute route limit must answer 200 then 429, and a plain fetch handler
// limited by @sluice/fetch's limitFetch the same.
import { serve } from '@hono/node-server';
import { ip, limitFetch } from '@sluice/fetch';
import { throttle } from '@sluice/hono';
import { Hono } from 'hono';

async function statuses(fetchHandler, path) {
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: fetchHandler, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${server.address().port}${path}`;
  const codes = [];
  for (let i = 0; i < 2; i++) {
    const res = await fetch(url);
    await res.arrayBuffer();
    codes.push(res.status);
  }
  server.close();
  server.closeAllConnections?.();
  return codes.join(' ');
}

const app = new Hono();
app.get('/users/:id', throttle('1/min'), (c) => c.text('ok'));
const hono = await statuses(app.fetch, '/users/1');
const plain = await statuses(
  limitFetch(() => new Response('ok'), { limit: '1/min', ip: ip.node() }),
  '/',
);
console.log(`hono (ESM): ${hono}; limitFetch: ${plain}`);
process.exitCode = hono === '200 429' && plain === '200 429' ? 0 : 1;
