// Problem details and the draft-11 headers (Koa).
import Router from '@koa/router';
import { Limit, throttle } from '@sluice/koa';
import Koa from 'koa';

const app = new Koa();
const router = new Router();

// A 429 answered as application/problem+json (draft-11's quota-exceeded problem type),
// with the draft-11 RateLimit-Policy and RateLimit headers on every response.
router.get(
  '/api/items',
  throttle([Limit.perMinute(2).named('burst'), Limit.perHour(100).named('hourly')], {
    headers: 'draft-11',
    body: 'problem',
  }),
  (ctx) => {
    ctx.body = { items: [] };
  },
);

app.use(router.routes());
app.listen(3000);
