import { Limit, rateLimit } from '@sluice/express';
import express from 'express';

const app = express();

// One adaptive limit for the whole process: requests in flight follow the measured latency.
app.use(
  rateLimit({
    limit: Limit.adaptive({
      min: 4,
      max: 500,
      // Health checks and payments last; bulk exports are shed first.
      priority: (req: express.Request) =>
        req.path === '/health' || req.path.startsWith('/pay')
          ? 'critical'
          : req.path.startsWith('/export')
            ? 'sheddable'
            : 'default',
    }),
    headers: ['legacy', 'draft-8'],
  }),
);

app.get('/work', (_req, res) => {
  res.json({ ok: true });
});

app.listen(3000);
// Past the server's capacity, the requests over the current limit get 503 with
// Retry-After: 1 at once, and the admitted ones keep their latency.
