import Router from '@koa/router';
import { Limit, throttle, throttles } from '@sluice/koa';
import Koa from 'koa';

// A named limiter: per user when authenticated, else per IP.
throttles.define('export', (req) =>
  Limit.concurrent(2)
    .by(String(req.userId ?? req.ip))
    .named('export'),
);

const app = new Koa();
const router = new Router();

router.get(
  '/export',
  throttle('throttle:export', { headers: ['legacy', 'draft-8'] }),
  async (ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 2000)); // a slow export
    ctx.body = { ok: true };
  },
);

app.use(router.routes());
app.listen(3000);
// Three exports at once from one user: two are served, the third gets 429 (Retry-After: 1);
// a fourth is served as soon as one finishes, or as soon as its client disconnects.
