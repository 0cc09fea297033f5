// What a denied request gets, and how to change it (Express; Fastify and Koa below).
import { rateLimit, throttle } from '@sluice/express';
import express from 'express';

const app = express();

// #region headers
// The IETF draft-8 headers instead of X-RateLimit-*; several styles: an array; none: false.
app.use(rateLimit({ limit: 'throttle:60,1', headers: 'draft-8' }));
// #endregion headers

// #region message
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

// #region problem
// RFC 9457 problem details: replace the answer with `handler` (its headers, Retry-After
// included, are already set on `res`).
app.get(
  '/api/items',
  throttle('throttle:60,1', {
    handler: (_req, res, _next, verdict) => {
      res
        .status(429)
        .type('application/problem+json')
        .json({
          type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
          title: 'Too Many Requests',
          status: 429,
          detail: `Retry in ${verdict.retryAfterSeconds} seconds`,
        });
    },
  }),
  (_req, res) => {
    res.json([]);
  },
);
// #endregion problem

app.listen(Number(process.env.PORT ?? 3000));
