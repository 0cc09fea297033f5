// The forms a limit takes, in one Express app. Every adapter accepts the same limits.
import { Limit, type RequestView, rateLimit, throttle, throttles } from '@sluice/express';
import express from 'express';

const app = express();

// #region strings
app.use(rateLimit({ limit: 'throttle:60,1' })); // 60 per 1 minute (Laravel's notation)
app.get('/search', throttle('10/s'), (_req, res) => {
  res.json([]);
}); // 10 per second
app.post('/upload', throttle('throttle:20,1,uploads'), (_req, res) => {
  res.json({});
}); // 20 per minute, keys named 'uploads'
app.get('/export', throttle('100/15m'), (_req, res) => {
  res.json({});
}); // 100 per 15 minutes
// #endregion strings

// #region limits
// Limit objects: perSecond, perMinute, perMinutes(m, n), perHour, perDay, none().
app.get('/feed', throttle(Limit.perMinutes(15, 100)), (_req, res) => {
  res.json([]);
});
// An array: the request must pass every limit; one denied by any is charged by none.
app.get('/pdf', throttle([Limit.perMinute(5), Limit.perDay(100)]), (_req, res) => {
  res.json({});
});
// #endregion limits

// #region named
// A named limiter (Laravel's RateLimiter::for): a function of the request, defined once,
// used by name anywhere ('throttle:api'), on any adapter.
const userOrIp = (req: RequestView) =>
  req.userId !== undefined ? `user:${req.userId}` : `ip:${req.ip}`;

throttles.define('api', (req) =>
  // .by(subject) replaces route and client in the key: every route using 'throttle:api'
  // shares one bucket per user. .named() names that bucket (and its draft-8 policy).
  Limit.perMinute(60).by(userOrIp(req)).named('api'),
);
// The same bucket, 10 units per request: a report costs as much as 10 ordinary calls.
throttles.define('report', (req) => Limit.perMinute(60).by(userOrIp(req)).named('api').cost(10));

app.get('/api/items', throttle('throttle:api'), (_req, res) => {
  res.json([]);
});
app.get('/api/report', throttle('throttle:report'), (_req, res) => {
  res.json({});
});
// #endregion named

// #region key
// Your own key: replaces route and subject (<prefix>:<limit name>:<key(req)>).
app.get(
  '/tenant',
  throttle('throttle:1000,1', {
    key: (req) => String(req.headers['x-tenant-id'] ?? req.ip),
  }),
  (_req, res) => {
    res.json({});
  },
);
// #endregion key

app.listen(Number(process.env.PORT ?? 3000));
