// An ESM Koa app (with @koa/router) on the installed tarballs: POST /login twice under a
// 1-per-minute route limit must answer 200 then 429.
import Router from '@koa/router';
import { throttle } from '@sluice/koa';
import Koa from 'koa';

const app = new Koa();
const router = new Router();
router.post('/login', throttle('1/min'), (ctx) => {
  ctx.body = 'ok';
});
app.use(router.routes());
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${server.address().port}/login`;
const codes = [];
for (let i = 0; i < 2; i++) codes.push((await fetch(url, { method: 'POST' })).status);
server.close();
console.log(`koa (ESM): ${codes.join(' ')}`);
process.exitCode = codes.join(' ') === '200 429' ? 0 : 1;
