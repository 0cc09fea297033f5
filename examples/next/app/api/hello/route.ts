import { ip, withRateLimit } from '@sluice/fetch';
import { after } from 'next/server';

// GET /api/hello: 5 per minute per client. Next gives no socket address: on Vercel
// ip.vercel() (X-Real-IP); behind your own proxy, ip.forwardedFor({ trustedHops: 1 }).
export const GET = withRateLimit(() => Response.json({ hello: 'world' }), {
  limit: '5/min',
  ip: ip.forwardedFor({ trustedHops: 1 }),
  route: '/api/hello',
  waitUntil: after,
});
