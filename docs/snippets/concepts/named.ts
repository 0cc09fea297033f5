// A named limiter, in an Express app: every adapter accepts the same 'throttle:<name>'.
// #region named
import { Limit, type RequestView, throttle, throttles } from '@sluice/express';
import express from 'express';

const app = express();

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

app.listen(Number(process.env.PORT ?? 3000));
