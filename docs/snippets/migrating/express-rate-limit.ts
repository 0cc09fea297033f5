import { rateLimit } from '@sluice/express';
import express from 'express';

const app = express();
app.set('trust proxy', 1);

// express-rate-limit: rateLimit({ windowMs: 15 * 60 * 1000, limit: 100,
//   standardHeaders: 'draft-8', legacyHeaders: false, message: 'Too many requests',
//   keyGenerator: (req) => req.get('x-api-key') ?? req.ip })
app.use(
  rateLimit({
    limit: '100/15m', // windowMs + limit in one string (or Limit.perMinutes(15, 100))
    algorithm: 'fixed-window', // express-rate-limit's counting; the default would be GCRA
    headers: 'draft-8', // standardHeaders: 'draft-8' + legacyHeaders: false
    message: 'Too many requests',
    key: (req) => String(req.headers['x-api-key'] ?? req.ip),
  }),
);

app.get('/', (_req, res) => {
  res.json({ ok: true });
});
app.listen(Number(process.env.PORT ?? 3000));
