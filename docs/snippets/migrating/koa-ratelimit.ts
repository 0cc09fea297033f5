import { rateLimit } from '@sluice/koa';
import { RedisStore } from '@sluice/redis';
import { Redis } from 'ioredis';
import Koa from 'koa';

const app = new Koa();
app.proxy = true;

// koa-ratelimit: ratelimit({ driver: 'redis', db: new Redis(), duration: 60000, max: 100,
//   id: (ctx) => ctx.ip, errorMessage: 'Sometimes You Just Have to Slow Down.',
//   whitelist: (ctx) => ctx.ip === '127.0.0.1', disableHeader: false })
app.use(
  rateLimit({
    limit: '100/min', // max per duration
    store: new RedisStore({ client: new Redis() }), // driver: 'redis' + db
    algorithm: 'fixed-window', // koa-ratelimit's counting; the default would be GCRA
    key: (req) => req.ip, // id
    message: 'Sometimes You Just Have to Slow Down.', // errorMessage
    skip: (req) => req.ip === '127.0.0.1', // whitelist
  }),
);

app.use((ctx) => {
  ctx.body = 'Hello';
});
app.listen(Number(process.env.PORT ?? 3000));
