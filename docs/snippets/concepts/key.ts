// A key of your own for a whole middleware, in an Express app.
// #region key
import { throttle } from '@sluice/express';
import express from 'express';

const app = express();

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
