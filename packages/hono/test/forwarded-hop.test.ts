// Behind `ip.forwardedFor`, a forwarded hop that is not an IP address (`not-an-ip`,
// `999.1.1.1`, 5,000 digits) is refused as an empty one: the request has no IP (500), and
// never gets a bucket keyed by whatever text the hop held.
import { Hono } from 'hono';
import { ip, MemoryStore, rateLimit } from '../src/index.js';

it('a forwarded hop that is not an IP is a 500 (no IP), a valid one is limited by its address', async () => {
  const app = new Hono();
  app.use(
    rateLimit({
      limit: '1/min',
      ip: ip.forwardedFor({ trustedHops: 1 }),
      store: new MemoryStore(),
    }),
  );
  app.get('/', (c) => c.text('ok'));
  app.onError((_error, c) => c.text('no ip', 500));
  const get = async (hop: string) =>
    (await app.request('/', { headers: { 'x-forwarded-for': `6.6.6.6, ${hop}` } })).status;
  for (const hop of ['not-an-ip', '999.1.1.1', '9'.repeat(5000), '']) {
    expect([hop.slice(0, 12), await get(hop)]).toEqual([hop.slice(0, 12), 500]);
    // a second time too: nothing was charged under the text
    expect(await get(hop)).toBe(500);
  }
  expect(await get('203.0.113.7')).toBe(200);
  expect(await get('203.0.113.7')).toBe(429);
});
