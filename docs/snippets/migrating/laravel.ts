import { Limit, throttle, throttles } from '@sluice/express';
import express from 'express';

// RateLimiter::for('uploads', fn (Request $request) =>
//   $request->user() ? Limit::perMinute(100)->by($request->user()->id) : Limit::perMinute(10)->by($request->ip()));
throttles.define('uploads', (req) =>
  req.userId !== undefined
    ? Limit.perMinute(100).by(`user:${req.userId}`)
    : Limit.perMinute(10).by(`ip:${req.ip}`),
);

const app = express();
// Route::post('/upload', ...)->middleware('throttle:uploads');
app.post('/upload', throttle('throttle:uploads', { algorithm: 'fixed-window' }), (_req, res) => {
  res.json({ ok: true });
});
// Route::post('/login', ...)->middleware('throttle:5,1');
app.post('/login', throttle('throttle:5,1', { algorithm: 'fixed-window' }), (_req, res) => {
  res.json({ ok: true });
});
app.listen(Number(process.env.PORT ?? 3000));
