import { ip, withRateLimit } from '@sluice/fetch';
import { NextResponse } from 'next/server';

// Every request under /api: 100 per minute per client, before any route runs. The headers
// go on the response Next continues with; a denied request is answered 429 here.
export const proxy = withRateLimit(() => NextResponse.next(), {
  limit: '100/min',
  ip: ip.forwardedFor({ trustedHops: 1 }),
  headers: 'draft-8',
});

export const config = { matcher: '/api/:path*' };
