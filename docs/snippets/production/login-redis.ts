// Logins: 5 per minute and 100 per day per client IP, shared by every server that runs
// this file against the same Redis (three servers behind one load balancer, say).
import { ipSubject, Limit, throttle, throttles } from '@sluice/express';
import { RedisStore } from '@sluice/redis';
import express from 'express';
import { Redis } from 'ioredis';

// One store for the whole process; its keys live in Redis, so every server sees the
// same counters. Redis's own clock decides (clock: 'server', the default), so the
// servers' clocks do not need to agree.
const store = new RedisStore({
  client: new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
  timeoutMs: 200, // a slower answer counts as a Redis failure (see onStoreError)
});

// A named limiter: both limits must pass; a request denied by either is charged by neither.
// ipSubject groups IPv6 clients by /64, as the default key does.
throttles.define('login', (req) => [
  Limit.perMinute(5).by(ipSubject(req.ip)),
  Limit.perDay(100).by(ipSubject(req.ip)),
]);

const app = express();
app.set('trust proxy', 1); // one load balancer in front: req.ip is the client's address

app.post(
  '/login',
  throttle('throttle:login', {
    store,
    algorithm: 'sliding-log', // exactly 5 in any 60 s (the default, GCRA, admits 9 in the first minute)
    onStoreError: 'deny', // Redis down: refuse logins rather than count them per server
  }),
  (_req, res) => {
    res.json({ ok: true });
  },
);

const port = Number(process.env.PORT ?? 3000);
app.listen(port, () => console.log(`login server on port ${port}`));
