// A body of your own shape for a denied request: Express's `handler`.
// #region problem
import { throttle } from '@sluice/express';
import express from 'express';

const app = express();

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
