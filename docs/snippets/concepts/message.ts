// Another status and message for a denied request, in an Express app.
// #region message
import { throttle } from '@sluice/express';
import express from 'express';

const app = express();

// Another status and message (the body stays {"statusCode", "error", "message"}),
// and a callback for every denial (logs, metrics).
app.post(
  '/login',
  throttle('throttle:5,1', {
    statusCode: 503,
    message: 'Too many attempts, try again later',
    onLimited: (req, decision) =>
      console.warn(`login limited: ${req.ip}, ${decision.retryAfterMs} ms`),
  }),
  (_req, res) => {
    res.json({ ok: true });
  },
);
// #endregion message

app.listen(Number(process.env.PORT ?? 3000));
