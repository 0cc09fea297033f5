import Router from '@koa/router';
import { rateLimit, throttle } from '@sluice/koa';
import Koa from 'koa';

const app = new Koa();
const router = new Router();

// Every request after this middleware: 60 per minute per client
// (ctx.state.user?.id when there is one, else ctx.ip).
app.use(rateLimit({ limit: 'throttle:60,1' }));

router.get('/', (ctx) => {
  ctx.body = { hello: 'world' };
});

// And POST /login: 5 per minute per client on top. The 6th quick attempt gets a 429.
router.post('/login', throttle('throttle:5,1'), (ctx) => {
  ctx.body = { ok: true, remaining: ctx.state.rateLimit?.remaining };
});

app.use(router.routes()).use(router.allowedMethods());

const port = Number(process.env.PORT ?? 3000);
app.listen(port, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${port}`);
});
