// The forms a limit takes, in one Express app. Every adapter accepts the same limits.
// #region strings
import { Limit, rateLimit, throttle } from '@sluice/express';
import express from 'express';

const app = express();

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

app.listen(Number(process.env.PORT ?? 3000));
